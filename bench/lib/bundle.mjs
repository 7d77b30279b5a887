// Browser bundle size of `createPlant` imported alone: bundled, minified, tree-shaken, then
// gzipped. Uses the client package's own measuring script when it exports one, so the bench and
// the client's size check report the same number; otherwise measures with esbuild here.
// Usage: node bundle.mjs → RESULT { min, gzip, how }.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT_SCRIPT = `${ROOT}packages/client/scripts/bundle-size.mjs`;
const CLIENT_DIST = `${ROOT}packages/client/dist/index.js`;

async function viaClientScript() {
  if (!existsSync(CLIENT_SCRIPT)) return undefined;
  const module = await import(pathToFileURL(CLIENT_SCRIPT).href);
  const measure = Object.values(module).find((value) => typeof value === 'function');
  if (measure === undefined) return undefined;
  const result = await measure({ exports: ['createPlant'] });
  const min = result?.min ?? result?.minified ?? result?.bytes;
  const gzip = result?.gzip ?? result?.minGzip ?? result?.gzipped;
  if (typeof min !== 'number' || typeof gzip !== 'number') return undefined;
  return { min, gzip, how: 'packages/client/scripts/bundle-size.mjs' };
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
