// The plant's fields on the pages that describe them, made from openapi.yaml's Plant and NewPlant as
// scripts/plant-shape.mjs reads them for `npm run generate`, so a field added to the spec is on the
// pages at the next `npm run docs:spec`: docs/service.md's table of the fields (type, required,
// answered, the rule in the words of its 40002 message, the description) and its list of the 40002 and
// 40003 messages, and docs/stores.md's `StoredPlant`, as the generator writes it for the core.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { SPEC_PAGES_COMMAND, tableBody } from './page-sections.mjs';
import { conflictMessage, plantMessages, readPlantShape, renderCoreCodec } from './plant-shape.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The page that describes the fields, from the repository's root. */
export const FIELDS_PAGE = 'docs/service.md';
/** The page that shows the store's interface. */
export const STORED_PLANT_PAGE = 'docs/stores.md';
/** Where `npm run generate` writes the `StoredPlant` that page shows. */
const STORED_PLANT_SOURCE = 'packages/core/src/generated/plant-codec.ts';

/** openapi.yaml, parsed. */
export function readSpec() {
  return yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8'));
}

/** `text` as one Markdown code span, whatever backticks it holds. */
function code(text) {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A field's schema in the spec: Plant's own, or one of NewPlant's parts. */
function fieldSchema(spec, field) {
  const { Plant, NewPlant } = spec.components.schemas;
  if (field.answered) return Plant.properties[field.name];
  return NewPlant.allOf.find((part) => part.properties?.[field.name] !== undefined).properties[field.name];
}

/** The fields, each with its description (whitespace folded), refusing a field the table would leave blank. */
export function describedFields(spec) {
  return readPlantShape(spec).map((field) => {
    const description = fieldSchema(spec, field).description;
    if (typeof description !== 'string' || description.trim() === '') {
      const schema = field.answered ? 'Plant' : 'NewPlant';
      throw new Error(
        `openapi.yaml: ${schema}.${field.name} has no description; the fields table of ${FIELDS_PAGE} shows it`,
      );
    }
    return { ...field, description: description.trim().replace(/\s+/g, ' ') };
  });
}

/** The type cell: the JSON Schema type, and the format where there is one. */
function typeWords(field) {
  return field.format === undefined ? code(field.type) : `${code(field.type)}, ${code(field.format)}`;
}

/** Whether, and when, the service answers the field. */
function answeredWords(field) {
  if (!field.answered) return 'no: kept, never answered';
  return field.required ? 'yes' : 'when the plant has it';
}

/** The table of the fields: what stands between its two markers. */
export function fieldsTable(spec = readSpec()) {
  const fields = describedFields(spec);
  const messages = plantMessages(fields);
  return tableBody(
    `Made from openapi.yaml's NewPlant and Plant by \`${SPEC_PAGES_COMMAND}\`: edit the spec, not this.`,
    [
      'field',
      'type',
      'in a `NewPlant`',
      'in the answer (`Plant`)',
      'a valid value (else this 40002 message)',
      'description',
    ],
    fields.map((field) => [
      code(field.name),
      typeWords(field),
      field.required ? 'required' : 'optional',
      answeredWords(field),
      code(messages[`${field.name}Invalid`]),
      field.description,
    ]),
  );
}

/** The 40002 messages byte for byte, in the order the service checks, and the 40003 message. */
export function plantMessageList(spec = readSpec()) {
  const fields = readPlantShape(spec);
  const messages = Object.values(plantMessages(fields)).map((message) => `- ${code(message)}`);
  return [
    '',
    `The 40002 messages, byte for byte, in the order the service checks them (\`PLANT_MESSAGES\` of \`@plant-store/core\`):`,
    '',
    ...messages,
    '',
    `The 40003 message (\`CONFLICT_MESSAGE\`): ${code(conflictMessage(fields))}.`,
    '',
  ].join('\n');
}

/** The core's `StoredPlant`, as `npm run generate` writes it, for a block of the stores' page. */
export function storedPlantBlock(spec = readSpec()) {
  const source = renderCoreCodec(readPlantShape(spec));
  const declaration = /^export (interface StoredPlant \{\n[^}]*\n\})$/m.exec(source)?.[1];
  if (declaration === undefined)
    throw new Error('scripts/plant-shape.mjs: the core codec has no StoredPlant interface');
  return [
    '',
    '```ts',
    `// as npm run generate writes it from openapi.yaml (${STORED_PLANT_SOURCE})`,
    declaration,
    '```',
    '',
  ].join('\n');
}

/** Every part this script makes, with its page and markers. */
export function plantFieldSections(spec = readSpec()) {
  return [
    {
      page: FIELDS_PAGE,
      start: '<!-- plant-fields:start -->',
      end: '<!-- plant-fields:end -->',
      body: fieldsTable(spec),
    },
    {
      page: FIELDS_PAGE,
      start: '<!-- plant-messages:start -->',
      end: '<!-- plant-messages:end -->',
      body: plantMessageList(spec),
    },
    {
      page: STORED_PLANT_PAGE,
      start: '<!-- stored-plant:start -->',
      end: '<!-- stored-plant:end -->',
      body: storedPlantBlock(spec),
    },
  ];
}
