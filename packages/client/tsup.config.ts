import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  sourcemap: false,
  // openapi-fetch is bundled, not required at run time: its CommonJS build sets `exports.default`,
  // which a `type: module` package's CJS output reads as the whole module object (so `createClient`
  // was not a function under `require`). Bundling its ESM source into both formats also leaves the
  // client with no runtime dependency at all; its types never appear in our .d.ts.
  noExternal: ['openapi-fetch'],
});
