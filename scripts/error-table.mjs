// Writes the error table of README.md and docs/service.md (between their error-table markers) from
// openapi.yaml's x-error-codes: per code its status, its constant, when it is answered, what the
// caller does about it and the sentence an app may show a person; and docs/service.md's list of the
// 40002 messages, from openapi.yaml's Plant and NewPlant as scripts/plant-shape.mjs reads them for
// `npm run generate`. `--check` only compares and exits 1 when a page differs;
// test/docs/error-table.test.ts makes the same comparison.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { tableCell, writeSections } from './page-sections.mjs';
import { plantMessages, readPlantShape } from './plant-shape.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const ERROR_TABLE_START = '<!-- error-table:start -->';
export const ERROR_TABLE_END = '<!-- error-table:end -->';
export const ERROR_TABLE_COMMAND = 'npm run docs:errors';
/** The pages that hold the table, from the repository's root. */
export const ERROR_TABLE_PAGES = ['README.md', 'docs/service.md'];
const PLANT_MESSAGES_PAGE = 'docs/service.md';

/** The spec's x-error-codes entries, each with its name, in order of code. */
export function errorCodes() {
  const spec = yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  const entries = spec.components.schemas.Error.properties.error['x-error-codes'];
  return Object.entries(entries)
    .map(([name, entry]) => {
      for (const field of ['description', 'remedy', 'userMessage']) {
        if (typeof entry[field] !== 'string' || entry[field] === '') {
          throw new Error(`openapi.yaml: x-error-codes entry ${entry.code} has no ${field}`);
        }
      }
      return { name, ...entry };
    })
    .sort((a, b) => a.code - b.code);
}

/** The table: what stands between the two markers. */
export function errorTable() {
  const rows = errorCodes().map(({ name, code, status, description, remedy, userMessage }) =>
    [String(code), String(status), `\`ErrorCode.${name}\``, description, remedy, userMessage].map(tableCell),
  );
  return [
    '',
    `<!-- Made from openapi.yaml's x-error-codes by \`${ERROR_TABLE_COMMAND}\`: edit the spec, not this. -->`,
    '',
    '| `error` | status | constant | when | what to do | `userMessages[code]`, for a person |',
    '|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ].join('\n');
}

/** The 40002 messages, byte for byte, in the order the service checks them (as PLANT_MESSAGES lists them). */
async function plantMessagesLine() {
  const spec = yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
  const messages = Object.values(plantMessages(readPlantShape(spec))).map((message) => `\`${message}\``);
  return `\nThe 40002 messages: ${messages.join(', ')}.\n`;
}

/** Every part this script writes: the table on each of its pages, and the 40002 messages. */
export async function errorSections() {
  const table = errorTable();
  return [
    ...ERROR_TABLE_PAGES.map((page) => ({ page, start: ERROR_TABLE_START, end: ERROR_TABLE_END, body: table })),
    {
      page: PLANT_MESSAGES_PAGE,
      start: '<!-- plant-messages:start -->',
      end: '<!-- plant-messages:end -->',
      body: await plantMessagesLine(),
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeSections(root, await errorSections(), { what: 'error reference', command: ERROR_TABLE_COMMAND });
}
