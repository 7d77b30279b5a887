// The flag reference on the server's page is made from the CLI's option table, so the page cannot fall
// behind the code; the other pages link to it instead of listing flags again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { USAGE } from '../src/internal/cli-options.js';
import {
  flagReference,
  REFERENCE_COMMAND,
  REFERENCE_END,
  REFERENCE_PAGE,
  REFERENCE_START,
} from '../src/internal/options/reference.js';
import { ENTRIES } from '../src/internal/options/table.js';
import { withSection } from '../../../scripts/page-sections.mjs';
import { publishedPages, root } from '../../../test/docs/blocks.js';

const read = (page: string) => readFileSync(join(root, page), 'utf8');

it(`has the flag reference of ${REFERENCE_PAGE} as the option table makes it`, () => {
  const page = read(REFERENCE_PAGE);
  expect(page, `${REFERENCE_PAGE} has a ${REFERENCE_START} … ${REFERENCE_END} section`).toContain(REFERENCE_START);
  const made = withSection(page, REFERENCE_START, REFERENCE_END, flagReference());
  expect(page === made, `the flag reference is stale: run ${REFERENCE_COMMAND}`).toBe(true);
});

it('names every flag and variable of the table in the reference and in --help', () => {
  const reference = read(REFERENCE_PAGE).split(REFERENCE_START)[1]?.split(REFERENCE_END)[0] ?? '';
  for (const [name, spec] of ENTRIES) {
    expect(reference).toContain(`\`--${name}`);
    expect(USAGE).toContain(`--${name}`);
    if (spec.env !== undefined) {
      expect(reference).toContain(`\`${spec.env}`);
      expect(USAGE).toContain(spec.env);
    }
  }
});

it('lists flags with their variables on no other page: they link to the reference', () => {
  // A row of a flag and its variable (a bench result named after a flag has no variable).
  const flagRow = /^\| *`--[a-z][^|]*\| *`PLANT_STORE_/m;
  const pages = publishedPages().filter((page) => page !== REFERENCE_PAGE);
  expect(pages.length).toBeGreaterThan(5);
  expect(pages.filter((page) => flagRow.test(read(page)))).toEqual([]);
});
