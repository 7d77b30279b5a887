// Writes the flag reference of packages/server/README.md (between its flags markers) from the CLI's
// option table, packages/server/src/internal/options/table.ts. `--check` only compares and exits 1
// when the page differs. packages/server/test/flag-reference.test.ts makes the same comparison.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

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

const { REFERENCE_PAGE, REFERENCE_COMMAND, withFlagReference } = await referenceModule();
const path = join(root, REFERENCE_PAGE);
const page = await readFile(path, 'utf8');
const made = withFlagReference(page);
if (process.argv.includes('--check')) {
  if (made !== page) {
    console.error(`${REFERENCE_PAGE}: the flag reference differs from the option table; run ${REFERENCE_COMMAND}`);
    process.exit(1);
  }
} else if (made !== page) {
  await writeFile(path, made);
  console.log(`${REFERENCE_PAGE}: flag reference written`);
} else {
  console.log(`${REFERENCE_PAGE}: flag reference up to date`);
}
