import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts', 'src/fastify.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    // Keeps the CLI, which the second build (running at the same time) writes.
    clean: ['!cli.js'],
    target: 'es2022',
    sourcemap: false,
  },
  {
    // The CLI is an executable, not an import: ESM only, no types, and it keeps its shebang.
    entry: ['src/cli.ts'],
    format: ['esm'],
    dts: false,
    clean: false,
    target: 'es2022',
    sourcemap: false,
  },
]);
