// Writes every part of the pages made from openapi.yaml, between its markers (`npm run docs:spec`): the
// error table (./error-table.mjs) and the plant's fields, the 40002 and 40003 messages and the stores'
// `StoredPlant` (./plant-fields.mjs). Run it after editing the spec and `npm run generate`. `--check`
// only compares and exits 1 naming this command; test/docs/spec-pages.test.ts makes the same comparison.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorSections } from './error-table.mjs';
import { SPEC_PAGES_COMMAND, writeSections } from './page-sections.mjs';
import { plantFieldSections, readSpec } from './plant-fields.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every part made from the spec, with its page and markers. */
export function specSections(spec = readSpec()) {
  return [...errorSections(spec), ...plantFieldSections(spec)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeSections(root, specSections(), {
    what: 'documentation made from openapi.yaml',
    command: SPEC_PAGES_COMMAND,
  });
}
