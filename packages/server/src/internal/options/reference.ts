// The flag reference of the server's README, made from the option table: a table of the options of
// each group, between two markers. `npm run docs:flags` writes it; a test fails when the page differs.
import { flagOf, notesOf, variableOf } from './describe.js';
import { GROUPS, type Group } from './spec.js';
import { ENTRIES, type OptionName, OPTIONS } from './table.js';

export const REFERENCE_START = '<!-- flags:start -->';
export const REFERENCE_END = '<!-- flags:end -->';

/** The page that holds the reference, from the repository's root, and the command that rewrites it. */
export const REFERENCE_PAGE = 'packages/server/README.md';
export const REFERENCE_COMMAND = 'npm run docs:flags';

/** A table cell: `|` escaped everywhere (code spans too, as GitHub wants), `<` and `>` outside code. */
function cell(markdown: string): string {
  return markdown
    .split('`')
    .map((part, index) => (index % 2 === 0 ? part.replaceAll('<', '&lt;').replaceAll('>', '&gt;') : part))
    .join('`')
    .replaceAll('|', '\\|');
}

function row(name: OptionName): string {
  const spec = OPTIONS[name];
  const notes = notesOf(name);
  const what = notes.length > 0 ? `${spec.help} (${notes.join('; ')})` : spec.help;
  return `| ${[flagOf(name), variableOf(name) ?? '', spec.default ?? '', spec.api ?? '', what].map(cell).join(' | ')} |`;
}

function groupTable(group: Group): string[] {
  const names = ENTRIES.filter(([, spec]) => spec.group === group).map(([name]) => name);
  return [
    `### ${GROUPS[group]}`,
    '',
    '| flag | variable | default | in code | what |',
    '|---|---|---|---|---|',
    ...names.map(row),
    '',
  ];
}

/** The reference, markers included. */
export function flagReference(): string {
  return [
    REFERENCE_START,
    `<!-- Made from the CLI's option table by \`${REFERENCE_COMMAND}\` (in the repository): edit the table, not this. -->`,
    '',
    ...(Object.keys(GROUPS) as Group[]).flatMap(groupTable),
    REFERENCE_END,
  ].join('\n');
}

/** `page` with its reference made anew; throws when the page has no markers. */
export function withFlagReference(page: string): string {
  const start = page.indexOf(REFERENCE_START);
  const end = page.indexOf(REFERENCE_END);
  if (start === -1 || end < start) throw new Error(`no ${REFERENCE_START} … ${REFERENCE_END} section in the page`);
  return page.slice(0, start) + flagReference() + page.slice(end + REFERENCE_END.length);
}
