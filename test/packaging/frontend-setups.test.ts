// The "Tested setups" table of docs/frontend.md is the one frontend-setups.ts renders from the rows the
// wrappers run (each run checks its installed majors against its row); the README and the mocks' page
// name exactly those setups; a row that claims msw 3 is one the matrix runs on msw 3.
// UPDATE_TESTED_SETUPS=1 npx vitest run test/packaging/frontend-setups.test.ts writes them from the rows.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { withSection } from '../../scripts/page-sections.mjs';
import { FRONTEND_MAJORS, renderSetupList, renderSetupTable, SETUP_ROWS } from './frontend-setups.js';
import { repoRoot } from './helpers.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The text between `<!-- <name>:start -->` and `<!-- <name>:end -->`, trimmed. */
function between(text: string, name: string): string | undefined {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(text);
  return match?.[1]?.trim();
}

const PAGES: readonly [string, string, string][] = [
  ['docs/frontend.md', 'tested-setups', renderSetupTable()],
  ['README.md', 'tested-setups-list', `Tested setups: ${renderSetupList()}.`],
  ['packages/msw/README.md', 'tested-setups-list', `Tested setups: ${renderSetupList()}.`],
];
if (process.env.UPDATE_TESTED_SETUPS === '1') {
  for (const [page, name, body] of PAGES) {
    writeFileSync(
      join(repoRoot, page),
      withSection(read(page), `<!-- ${name}:start -->\n`, `<!-- ${name}:end -->`, `${body}\n`),
    );
  }
}

it('docs/frontend.md holds the table rendered from the rows that run', () => {
  const [page, name, body] = PAGES[0]!;
  expect(between(read(page), name), 'UPDATE_TESTED_SETUPS=1 writes it').toBe(body);
});

it.each(PAGES.slice(1))('%s names exactly the setups of the table', (page, name, body) => {
  expect(between(read(page), name), 'UPDATE_TESTED_SETUPS=1 writes it').toBe(body);
});

it('each row is run by its wrapper, and msw 3 is claimed only where the matrix installs it', () => {
  const matrix = read('scripts/node-matrix.sh');
  for (const row of SETUP_ROWS) {
    const wrapper = `test/packaging/frontend-${row.runner}.test.ts`;
    expect(read(wrapper), `${row.id} in ${wrapper}`).toContain(`'${row.id}'`);
    if (row.msw.includes(3)) {
      expect(FRONTEND_MAJORS.next[row.runner], row.id).toContain('msw@^3');
      expect(matrix, row.id).toContain(`vitest.frontend.config.ts ${wrapper}`);
    } else {
      expect(row.notOnMsw3, `${row.id} says why it stays on msw 2`).toBeTruthy();
    }
  }
});

it("the mocks' page links the Jest recipe, which shows examples/jest's files as they are", () => {
  expect(read('packages/msw/README.md')).toContain('/docs/testing.md#jest)');
  // test/docs/snippets.test.ts compares each block under these markers with its file.
  const recipe = read('docs/testing.md');
  for (const file of ['jest.config.js', 'babel.config.cjs', 'jest.setup.js', 'src/mocks.ts']) {
    expect(recipe).toContain(`<!-- file: examples/jest/${file} -->`);
  }
});
