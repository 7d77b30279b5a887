// Writes the flag reference of packages/server/README.md (between its flags markers) from the CLI's
// option table, packages/server/src/internal/options/table.ts. `--check` only compares and exits 1
// when the page differs. packages/server/test/flag-reference.test.ts makes the same comparison.
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { writeSections } from './page-sections.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The reference module, bundled from its TypeScript into the cache, where its packages resolve. */
async function referenceModule() {
  const outfile = join(root, 'node_modules/.cache/flag-reference.mjs');
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(root, 'packages/server/src/internal/options/reference.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return import(`${pathToFileURL(outfile).href}?${Date.now()}`);
}

const { REFERENCE_PAGE, REFERENCE_START, REFERENCE_END, REFERENCE_COMMAND, flagReference } = await referenceModule();
await writeSections(
  root,
  [{ page: REFERENCE_PAGE, start: REFERENCE_START, end: REFERENCE_END, body: flagReference() }],
  { what: 'flag reference', command: REFERENCE_COMMAND },
);
