// The flag reference of the server's README, made from the option table: a table of the options of
// each group, between two markers. `npm run docs:flags` writes it (scripts/flag-reference.mjs, with the
// marker code every generated part of the pages shares); a test fails when the page differs.
import { tableCell } from '../../../../../scripts/page-sections.mjs';
import { flagOf, notesOf, variableOf } from './describe.js';
import { GROUPS, type Group } from './spec.js';
import { ENTRIES, type OptionName, OPTIONS } from './table.js';

export const REFERENCE_START = '<!-- flags:start -->';
export const REFERENCE_END = '<!-- flags:end -->';

/** The page that holds the reference, from the repository's root, and the command that rewrites it. */
export const REFERENCE_PAGE = 'packages/server/README.md';
export const REFERENCE_COMMAND = 'npm run docs:flags';

function row(name: OptionName): string {
  const spec = OPTIONS[name];
  const notes = notesOf(name);
  const what = notes.length > 0 ? `${spec.help} (${notes.join('; ')})` : spec.help;
  return `| ${[flagOf(name), variableOf(name) ?? '', spec.default ?? '', spec.api ?? '', what].map(tableCell).join(' | ')} |`;
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

/** The reference: what stands between the two markers. */
export function flagReference(): string {
  return [
    '',
    `<!-- Made from the CLI's option table by \`${REFERENCE_COMMAND}\` (in the repository): edit the table, not this. -->`,
    '',
    ...(Object.keys(GROUPS) as Group[]).flatMap(groupTable),
    '',
  ].join('\n');
}
