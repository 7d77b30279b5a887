import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.package.js';

export default defineConfig(
  packageBuild({
    // `validate` is its own entry, so the form's validator never reaches createPlant's bundle.
    entry: ['src/index.ts', 'src/validate.ts'],
    // openapi-fetch is bundled, not required at run time: its CommonJS build sets `exports.default`,
    // which a `type: module` package's CJS output reads as the whole module object (so `createClient`
    // was not a function under `require`). Bundling its ESM source into both formats also leaves the
    // client with no runtime dependency at all; its types never appear in our .d.ts.
    noExternal: ['openapi-fetch'],
  }),
);
