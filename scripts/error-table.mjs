// The error table of README.md and docs/service.md (between their error-table markers), made from
// openapi.yaml's x-error-codes: per code its status, its constant, when it is answered, what the caller
// does about it and the sentence an app may show a person. `npm run docs:spec` (scripts/spec-pages.mjs)
// writes it with the other parts made from the spec; test/docs/spec-pages.test.ts fails while a page
// differs.
import { SPEC_PAGES_COMMAND, tableBody } from './page-sections.mjs';
import { readSpec } from './plant-fields.mjs';

export const ERROR_TABLE_START = '<!-- error-table:start -->';
export const ERROR_TABLE_END = '<!-- error-table:end -->';
/** The pages that hold the table, from the repository's root. */
export const ERROR_TABLE_PAGES = ['README.md', 'docs/service.md'];

/** The spec's x-error-codes entries, each with its name, in order of code. */
export function errorCodes(spec = readSpec()) {
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
export function errorTable(spec = readSpec()) {
  return tableBody(
    `Made from openapi.yaml's x-error-codes by \`${SPEC_PAGES_COMMAND}\`: edit the spec, not this.`,
    ['`error`', 'status', 'constant', 'when', 'what to do', '`userMessages[code]`, for a person'],
    errorCodes(spec).map(({ name, code, status, description, remedy, userMessage }) => [
      String(code),
      String(status),
      `\`ErrorCode.${name}\``,
      description,
      remedy,
      userMessage,
    ]),
  );
}

/** The table on each of its pages. */
export function errorSections(spec = readSpec()) {
  const table = errorTable(spec);
  return ERROR_TABLE_PAGES.map((page) => ({ page, start: ERROR_TABLE_START, end: ERROR_TABLE_END, body: table }));
}
