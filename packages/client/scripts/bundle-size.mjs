// Measures what `createPlant` costs a browser app: the function imported alone from the built ESM
// entry, bundled with openapi-fetch by esbuild (platform browser, esm, minified, tree-shaken), gzipped.
// `node packages/client/scripts/bundle-size.mjs` prints the result as JSON; the bench workspace and
// the client's test import `measureBundleSize`.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The budget for `createPlant` alone, min+gzip, in bytes. */
export const BUDGET = 4096;

/**
 * Bundles `import { <names> } from '@plant-store/client'` for the browser and measures it.
 * `entry` is the file to import from: the built `dist/index.js` (default) or `src/index.ts`.
 */
export async function measureBundleSize({ names = ['createPlant'], entry = join(packageDir, 'dist/index.js') } = {}) {
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
  return { names, min: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, budget: BUDGET };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  console.log(JSON.stringify(await measureBundleSize(names.length > 0 ? { names } : {})));
}
