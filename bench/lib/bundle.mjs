// Browser bundle size of `createPlant` imported alone: bundled, minified, tree-shaken, then
// gzipped. Uses the client package's own `measureBundleSize`, so the bench and the client's size
// test report the same number; measures with esbuild here only where that script is absent.
// Usage: node bundle.mjs → RESULT { min, gzip, how }.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT_SCRIPT = `${ROOT}packages/client/scripts/bundle-size.mjs`;
const CLIENT_DIST = `${ROOT}packages/client/dist/index.js`;

async function viaClientScript() {
  if (!existsSync(CLIENT_SCRIPT)) return undefined;
  const { measureBundleSize } = await import(pathToFileURL(CLIENT_SCRIPT).href);
  if (typeof measureBundleSize !== 'function') return undefined;
  const { min, gzip } = await measureBundleSize({ names: ['createPlant'] });
  return { min, gzip, how: '`measureBundleSize` of packages/client/scripts/bundle-size.mjs' };
}

async function viaEsbuild() {
  if (!existsSync(CLIENT_DIST)) throw new Error('packages/client/dist/index.js is not built');
  const { build } = await import('esbuild');
  const output = await build({
    stdin: { contents: `export { createPlant } from ${JSON.stringify(CLIENT_DIST)};`, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = output.outputFiles[0].contents;
  return { min: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, how: 'esbuild (bench/lib/bundle.mjs)' };
}

const result = (await viaClientScript().catch(() => undefined)) ?? (await viaEsbuild());
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
