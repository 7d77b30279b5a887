// Builds the package as `npm run build` does (tsup, ESM + CJS, without the .d.ts) into a private
// folder, so tests that need a built copy neither race each other nor depend on a stale dist/.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A fresh build; `esm` and `cjs` are its main entry's files, `validate*` the validate entry's, `remove()` deletes it. */
export async function buildCopy() {
  // Under the package's node_modules: the nearest package.json is the client's ("type": "module"),
  // and openapi-fetch resolves from there as it does for dist/.
  const cache = join(packageDir, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const outDir = await mkdtemp(join(cache, 'build-'));
  await build({
    config: join(packageDir, 'tsup.config.ts'),
    entry: [join(packageDir, 'src/index.ts'), join(packageDir, 'src/validate.ts')],
    outDir,
    dts: false,
    clean: false,
    silent: true,
    tsconfig: join(packageDir, 'tsconfig.json'),
  });
  return {
    esm: join(outDir, 'index.js'),
    cjs: join(outDir, 'index.cjs'),
    validateEsm: join(outDir, 'validate.js'),
    validateCjs: join(outDir, 'validate.cjs'),
    remove: () => rm(outDir, { recursive: true, force: true }),
  };
}
