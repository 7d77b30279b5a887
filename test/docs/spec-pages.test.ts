// The parts of the pages made from openapi.yaml by `npm run docs:spec` (scripts/spec-pages.mjs): the error
// table, the plant's fields and their 40002 and 40003 messages, the stores' StoredPlant. Each page holds
// what the spec makes, a field added to the spec reaches every part, and no page lists the plant's
// fields by hand outside them, so a field added or removed leaves no page stale.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFLICT_MESSAGE, PLANT_FIELDS, PLANT_MESSAGES } from '../../packages/core/src/generated/plant-shape.js';
import { SPEC_PAGES_COMMAND, withSection } from '../../scripts/page-sections.mjs';
import { FIELDS_PAGE, fieldsTable, plantFieldSections, readSpec } from '../../scripts/plant-fields.mjs';
import { specSections } from '../../scripts/spec-pages.mjs';
import { publishedPages, root } from './blocks.js';

const read = (page: string) => readFileSync(join(root, page), 'utf8');
const sections = specSections();

/** The text between two markers of `page`. */
function part(page: string, start: string, end: string): string {
  const text = read(page);
  return text.slice(text.indexOf(start), text.indexOf(end));
}

/** openapi.yaml with one more optional field in Plant: what a maintainer adds. */
function specWithHeight(description: string | null = 'Height in centimetres') {
  const spec = structuredClone(readSpec()) as {
    components: { schemas: { Plant: { properties: Record<string, unknown> } } };
  };
  spec.components.schemas.Plant.properties.height = {
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 20000,
    ...(description !== null && { description }),
  };
  return spec;
}

describe('the parts made from openapi.yaml', () => {
  it.each(sections)('$page holds its $start part as the spec makes it', ({ page, start, end, body }) => {
    const text = read(page);
    expect(text, `${page} has a ${start} … ${end} section`).toContain(start);
    expect(text === withSection(text, start, end, body), `${page} is stale: run ${SPEC_PAGES_COMMAND}`).toBe(true);
  });

  it('names the command in package.json that writes them', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[SPEC_PAGES_COMMAND.replace('npm run ', '')]).toBe('node scripts/spec-pages.mjs');
  });
});

describe("the plant's fields", () => {
  const rows = part(FIELDS_PAGE, '<!-- plant-fields:start -->', '<!-- plant-fields:end -->')
    .split('\n')
    .filter((line) => line.startsWith('| `'));

  it("has a row per field of the generated shape, in its order, with the field's 40002 message", () => {
    expect(rows.map((row) => row.split(' | ')[0])).toEqual(PLANT_FIELDS.map((field) => `| \`${field.name}\``));
    PLANT_FIELDS.forEach((field, index) => {
      expect(rows[index]).toContain(` | ${field.required ? 'required' : 'optional'} | `);
      expect(rows[index]).toContain(`| \`${PLANT_MESSAGES[`${field.name}Invalid` as keyof typeof PLANT_MESSAGES]}\` |`);
    });
  });

  it('lists every 40002 message the service answers, in its order, and the 40003 message', () => {
    const list = part(FIELDS_PAGE, '<!-- plant-messages:start -->', '<!-- plant-messages:end -->');
    const listed = [...list.matchAll(/^- `(.*)`$/gm)].map((match) => match[1]);
    expect(listed).toEqual(Object.values(PLANT_MESSAGES));
    expect(list).toContain(`\`${CONFLICT_MESSAGE}\``);
  });

  it('follows a field added to the spec: its row, its messages, its member of StoredPlant', () => {
    const made = plantFieldSections(specWithHeight()).map((section) => section.body);
    expect(made[0]).toContain(
      '| `height` | `integer`, `int32` | optional | when the plant has it | `height must be an integer between 1 and 20000 when present` | Height in centimetres |',
    );
    expect(made[1]).toContain('- `height must be an integer between 1 and 20000 when present`');
    expect(made[1]).toContain('`id is stored already with a different name, tag or height`');
    expect(made[2]).toContain('  readonly height?: number;\n}');
  });

  it('refuses a field without a description, naming it and the page', () => {
    expect(() => fieldsTable(specWithHeight(null))).toThrow(
      `openapi.yaml: Plant.height has no description; the fields table of ${FIELDS_PAGE} shows it`,
    );
  });
});

describe('the pages outside those parts', () => {
  // Pages whose owners reword them with the stores' shape work; each is named in the report of the
  // change that listed it here, and leaves this list with that work.
  const pendingOwners = ['docs/postgres.md'];
  /** Two fields in the spec's order, written as a list ("name and tag", "`id`, `name`", "{ name, tag? }"). */
  const names = PLANT_FIELDS.map((field) => field.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pairs = names
    .slice(1)
    .map(
      (name, index) =>
        `\\b${names[index]}\`?\\??(?::[^,;\\n]*)?\`?(?:,|\\s+and|\\s+or)\\s+(?:(?:an?|the(?:\\s+same)?)\\s+)?\`?${name}\\b`,
    );
  const listing = new RegExp(pairs.join('|'));

  /** A page's prose: generated parts and fenced code (example data, files shown as they are) taken out. */
  function prose(page: string): string {
    let text = read(page);
    for (const { start, end } of sections.filter((section) => section.page === page)) {
      text = withSection(text, start, end, '');
    }
    return text.replace(/^```[\s\S]*?^```$/gm, '');
  }

  it('list no two of the plant\'s fields by hand: they say "every field" and link to the table', () => {
    expect(names.length).toBeGreaterThan(1);
    const pages = publishedPages().filter((page) => !pendingOwners.includes(page));
    const found = pages.flatMap((page) =>
      prose(page)
        .split('\n')
        .filter((line) => listing.test(line))
        .map((line) => `${page}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
