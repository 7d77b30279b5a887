import { defineConfig } from 'tsup';

export default defineConfig({
  // `testing` is its own entry so that fast-check, its peer, never reaches the main entry.
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  sourcemap: false,
});
