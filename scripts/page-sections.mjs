// The generated parts of the documentation pages: a page holds each between two marker comments, and a
// script writes what stands between them (the markers stay) from the part's source, so one fact is
// written once. `--check` only compares and exits 1 naming the command that rewrites the page; each
// part's test makes the same comparison with `withSection`.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The command that writes every part made from openapi.yaml (scripts/spec-pages.mjs). */
export const SPEC_PAGES_COMMAND = 'npm run docs:spec';

/** A Markdown table cell: `|` escaped everywhere (code spans too, as GitHub wants), `<` and `>` outside code. */
export function tableCell(markdown) {
  return markdown
    .split('`')
    .map((part, index) => (index % 2 === 0 ? part.replaceAll('<', '&lt;').replaceAll('>', '&gt;') : part))
    .join('`')
    .replaceAll('|', '\\|');
}

/**
 * A generated table as a section's body: a comment (`note`: what it is made from, by which command), the
 * header row, and a row per entry, each cell Markdown escaped by {@link tableCell}.
 */
export function tableBody(note, headers, rows) {
  return [
    '',
    `<!-- ${note} -->`,
    '',
    `| ${headers.join(' | ')} |`,
    `|${'---|'.repeat(headers.length)}`,
    ...rows.map((row) => `| ${row.map(tableCell).join(' | ')} |`),
    '',
  ].join('\n');
}

/** `page` with the text between `start` and `end` replaced by `body`; throws when it has no such section. */
export function withSection(page, start, end, body) {
  const from = page.indexOf(start);
  const to = page.indexOf(end, from + start.length);
  if (from === -1 || to === -1) throw new Error(`no ${start} … ${end} section in the page`);
  return page.slice(0, from + start.length) + body + page.slice(to);
}

/**
 * Writes every section into its page (each `{ page, start, end, body }`, `page` from `root`), or with
 * `--check` among the arguments only compares and exits 1 when a page differs. `what` names the part
 * in the messages, `command` what rewrites it.
 */
export async function writeSections(root, sections, { what, command }) {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const page of new Set(sections.map((section) => section.page))) {
    const text = await readFile(join(root, page), 'utf8');
    let made = text;
    for (const { start, end, body } of sections.filter((section) => section.page === page)) {
      try {
        made = withSection(made, start, end, body);
      } catch (error) {
        throw new Error(`${page}: ${error.message}`);
      }
    }
    if (made === text) {
      console.log(`${page}: ${what} up to date`);
    } else if (check) {
      console.error(`${page}: the ${what} differs from its source; run ${command}`);
      stale = true;
    } else {
      await writeFile(join(root, page), made);
      console.log(`${page}: ${what} written`);
    }
  }
  if (stale) process.exit(1);
}
