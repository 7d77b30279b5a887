// Measures what the client costs a browser app: `createPlant` imported alone from the built ESM
// entry, bundled with openapi-fetch by esbuild (platform browser, esm, minified, tree-shaken), gzipped;
// and, apart, everything of the `@plant-store/client/validate` entry (the form's validator).
// `node packages/client/scripts/bundle-size.mjs` prints both as JSON, one line each (with export names
// as arguments: those names of the main entry); the bench workspace and the client's test import
// `measureBundleSize` and `measureValidateBundleSize`.
import { build } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// A field the spec adds brings its check, its writer and its message into the bundles: each budget grows
// by a fixed allowance per field beyond the service's first three (id, name, tag), measured with fields of
// every kind added (about 65 B per field for createPlant, 105 B for the validate entry).
const CREATE_BYTES_PER_FIELD = 80;
const VALIDATE_BYTES_PER_FIELD = 120;
/** How many fields the spec has beyond the first three, counted in the generated field table. */
const ADDED_FIELDS =
  readFileSync(join(packageDir, 'src', 'generated', 'plant-shape.ts'), 'utf8').match(/^ {2}\{ name: /gm).length - 3;

/** The budget for `createPlant` alone, min+gzip, in bytes. */
export const BUDGET = 4608 + CREATE_BYTES_PER_FIELD * ADDED_FIELDS;

/** The budget for the whole `@plant-store/client/validate` entry, min+gzip, in bytes. */
export const VALIDATE_BUDGET = 1024 + VALIDATE_BYTES_PER_FIELD * ADDED_FIELDS;

/** Every export of the validate entry that costs bytes (its types cost none). */
export const VALIDATE_NAMES = ['validateNewPlant', 'validateNewPlantForm', 'newPlantSchema', 'newPlantFormSchema'];

/**
 * Bundles `import { <names> } from '@plant-store/client'` for the browser and measures it.
 * `entry` is the file to import from: the built `dist/index.js` (default) or `src/index.ts`;
 * `budget` is the figure reported beside the size.
 */
export async function measureBundleSize({
  names = ['createPlant'],
  entry = join(packageDir, 'dist/index.js'),
  budget = BUDGET,
} = {}) {
  if (!existsSync(entry)) throw new Error(`${entry} does not exist: run \`npm run build -w packages/client\` first`);
  const result = await build({
    stdin: {
      contents: `export { ${names.join(', ')} } from ${JSON.stringify(entry)};`,
      resolveDir: packageDir,
      loader: 'js',
    },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    minify: true,
    treeShaking: true,
    target: 'es2022',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  return { names, min: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, budget };
}

/** Measures every export of the validate entry (the built `dist/validate.js` by default) against its budget. */
export function measureValidateBundleSize({ entry = join(packageDir, 'dist/validate.js') } = {}) {
  return measureBundleSize({ names: VALIDATE_NAMES, entry, budget: VALIDATE_BUDGET });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  console.log(JSON.stringify(await measureBundleSize(names.length > 0 ? { names } : {})));
  if (names.length === 0) console.log(JSON.stringify({ entry: 'validate', ...(await measureValidateBundleSize()) }));
}
