// The plant's shape, read from openapi.yaml's `Plant` and `NewPlant`, and the code every package
// needs of it: the field list, each field's rules and messages, the readers and writers of the JSON
// bodies, plant equality. `scripts/generate.mjs` writes what this renders; nothing else in the
// repository lists the plant's fields by hand.
//
// Supported: scalar fields (string, integer with format int32 or int64, number, boolean) with the
// keywords `format`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`,
// `maxLength`, `pattern` and `enum`, plus annotations. Anything else stops `npm run generate` with an
// error naming it: a rule the generator does not know must never be dropped silently.

/** Keywords that only document a field. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', '$comment']);
/** Keywords the generated checks enforce, by JSON Schema type. */
const RULES = {
  string: new Set(['type', 'minLength', 'maxLength', 'pattern', 'enum']),
  integer: new Set(['type', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum']),
  number: new Set(['type', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum']),
  boolean: new Set(['type']),
};
const INT_FORMATS = { int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n] };
/** The field every store keys plants on: NewPlant's, never answered. */
const KEY = 'id';

/** A fault in the spec's plant schemas, named by its place. */
function refuse(where, why) {
  throw new Error(
    `openapi.yaml: ${where}: ${why}. Supported: scalar fields (string; integer with format int32 or int64; number; boolean) with minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, pattern, enum.`,
  );
}

/** An object schema's fields, checked: `{ name, schema, required }` in property order. */
function objectFields(schema, where) {
  if (schema === null || typeof schema !== 'object') refuse(where, 'not a schema object');
  for (const key of Object.keys(schema)) {
    if (!['type', 'required', 'properties', ...ANNOTATIONS].includes(key))
      refuse(where, `the keyword ${key} is not supported on the plant's object schemas`);
  }
  if (schema.type !== 'object') refuse(where, 'must be `type: object`');
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  for (const name of required)
    if (!(name in properties)) refuse(where, `required names ${name}, which has no property`);
  return Object.entries(properties).map(([name, field]) => ({
    name,
    schema: field,
    required: required.includes(name),
  }));
}

/** A number keyword as an exact bigint for an integer field, refusing what YAML cannot have read exactly. */
function exactBound(value, where, keyword, range) {
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(where, `${keyword} must be a number`);
  if (!Number.isInteger(value)) return undefined; // a fractional bound on an integer: handled by the caller
  if (Number.isSafeInteger(value)) return BigInt(value);
  // YAML numbers are doubles: beyond 2^53 only the format's own edges (which clamp) are meant exactly.
  const big = BigInt(value);
  if (big <= range[0]) return range[0];
  if (big >= range[1]) return range[1];
  refuse(where, `${keyword} ${value} is beyond 2^53 and cannot be read from YAML exactly`);
}

/** One field's normalised description: its kind and the rules the checks enforce. */
function describeField({ name, schema, required }, where, answered) {
  const at = `${where}.${name}`;
  if (name === '__proto__') refuse(at, 'a field cannot be named __proto__');
  if (schema === null || typeof schema !== 'object') refuse(at, 'not a schema object');
  if ('$ref' in schema || 'allOf' in schema || 'oneOf' in schema || 'anyOf' in schema) {
    refuse(at, 'composed and referenced field schemas are not supported');
  }
  const type = schema.type;
  if (typeof type !== 'string' || !(type in RULES)) refuse(at, `type ${JSON.stringify(type)} is not supported`);
  for (const key of Object.keys(schema)) {
    if (!RULES[type].has(key) && !ANNOTATIONS.has(key))
      refuse(at, `the keyword ${key} is not supported on a ${type} field`);
  }
  const field = { name, type, required, answered, key: name === KEY };
  if (type === 'string') {
    field.kind = 'string';
    for (const keyword of ['minLength', 'maxLength']) {
      if (keyword in schema) {
        if (!Number.isSafeInteger(schema[keyword]) || schema[keyword] < 0)
          refuse(at, `${keyword} must be a whole number`);
        field[keyword] = schema[keyword];
      }
    }
    if ('pattern' in schema) {
      if (typeof schema.pattern !== 'string') refuse(at, 'pattern must be a string');
      try {
        new RegExp(schema.pattern, 'u');
      } catch (error) {
        refuse(at, `pattern is not a valid regular expression: ${error.message}`);
      }
      field.pattern = schema.pattern;
    }
    if ('enum' in schema) field.enum = enumOf(schema.enum, at, (v) => typeof v === 'string');
  } else if (type === 'integer') {
    const format = schema.format;
    if (!(format in INT_FORMATS)) refuse(at, `an integer needs format int32 or int64, not ${JSON.stringify(format)}`);
    field.kind = format;
    field.format = format;
    if (format === 'int64' && answered) {
      refuse(
        at,
        'an int64 field the service answers (in Plant) is not supported: a JavaScript client reads answers with JSON.parse, which rounds beyond 2^53; use int32, or a string of digits',
      );
    }
    const range = INT_FORMATS[format];
    let [low, high] = range;
    let lowExclusive = false;
    let highExclusive = false;
    // The effective bounds: the format's range narrowed by each keyword, exclusive ones as the next integer.
    const narrow = (keyword, apply) => {
      if (!(keyword in schema)) return;
      const value = schema[keyword];
      const exact = exactBound(value, at, keyword, range);
      apply(exact ?? value);
    };
    narrow('minimum', (v) => {
      const b = typeof v === 'bigint' ? v : BigInt(Math.ceil(v));
      if (b > low) {
        low = b;
        lowExclusive = false;
      }
    });
    narrow('exclusiveMinimum', (v) => {
      const b = typeof v === 'bigint' ? v : BigInt(Math.floor(v));
      if (b >= low) {
        low = b;
        lowExclusive = true;
      }
    });
    narrow('maximum', (v) => {
      const b = typeof v === 'bigint' ? v : BigInt(Math.floor(v));
      if (b < high) {
        high = b;
        highExclusive = false;
      }
    });
    narrow('exclusiveMaximum', (v) => {
      const b = typeof v === 'bigint' ? v : BigInt(Math.ceil(v));
      if (b <= high) {
        high = b;
        highExclusive = true;
      }
    });
    field.low = lowExclusive ? low + 1n : low;
    field.high = highExclusive ? high - 1n : high;
    if (field.low > field.high) refuse(at, 'its bounds leave no integer');
    if ('enum' in schema)
      field.enum = enumOf(
        schema.enum,
        at,
        (v) => Number.isSafeInteger(v) && BigInt(v) >= field.low && BigInt(v) <= field.high,
      );
  } else if (type === 'number') {
    if ('format' in schema && !['double', 'float'].includes(schema.format)) {
      refuse(at, `a number's format must be double or float, not ${JSON.stringify(schema.format)}`);
    }
    field.kind = 'number';
    if ('format' in schema) field.format = schema.format;
    for (const keyword of ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum']) {
      if (keyword in schema) {
        if (typeof schema[keyword] !== 'number' || !Number.isFinite(schema[keyword]))
          refuse(at, `${keyword} must be a number`);
        field[keyword] = schema[keyword];
      }
    }
    if ('enum' in schema) field.enum = enumOf(schema.enum, at, (v) => typeof v === 'number' && Number.isFinite(v));
  } else {
    field.kind = 'boolean';
  }
  const examples = schema.examples ?? ('example' in schema ? [schema.example] : undefined);
  if (examples !== undefined) {
    if (!Array.isArray(examples)) refuse(at, 'examples must be a list');
    field.examples = examples;
  }
  return field;
}

function enumOf(values, at, valid) {
  if (!Array.isArray(values) || values.length === 0) refuse(at, 'enum must be a non-empty list');
  for (const value of values)
    if (!valid(value)) refuse(at, `enum value ${JSON.stringify(value)} does not fit the field's type and bounds`);
  return values;
}

/**
 * The plant's fields from a parsed spec: NewPlant's own fields first (the key, `id`), then Plant's,
 * each in property order. Plant's fields are what the service answers; NewPlant's own it only keeps.
 */
export function readPlantShape(spec) {
  const schemas = spec?.components?.schemas ?? {};
  const plantFields = objectFields(schemas.Plant, 'components.schemas.Plant').map((f) =>
    describeField(f, 'Plant', true),
  );
  const newPlant = schemas.NewPlant;
  const parts = newPlant?.allOf;
  if (!Array.isArray(parts) || Object.keys(newPlant).some((k) => k !== 'allOf' && !ANNOTATIONS.has(k))) {
    refuse('components.schemas.NewPlant', 'must be `allOf: [{ $ref: Plant }, { type: object, ... }]`');
  }
  const own = [];
  let refsPlant = false;
  for (const part of parts) {
    if (part?.$ref === '#/components/schemas/Plant') refsPlant = true;
    else
      own.push(
        ...objectFields(part, 'components.schemas.NewPlant.allOf').map((f) => describeField(f, 'NewPlant', false)),
      );
  }
  if (!refsPlant)
    refuse('components.schemas.NewPlant', 'must include Plant through `$ref: #/components/schemas/Plant`');
  const fields = [...own, ...plantFields];
  const names = new Set();
  for (const field of fields) {
    if (names.has(field.name)) refuse(`NewPlant.${field.name}`, 'the field is defined twice');
    names.add(field.name);
  }
  const key = fields.find((f) => f.key);
  if (key === undefined || key.answered || !key.required || key.kind !== 'int64') {
    refuse('NewPlant.id', 'the key `id` must be a required int64 field of NewPlant, not of Plant');
  }
  return fields;
}

// ---- messages ----------------------------------------------------------------------------------

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a valid value of `field` is, as the words after "must be". */
function ruleWords(field) {
  if (field.kind === 'boolean') return 'true or false';
  if (field.enum !== undefined) return `one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (field.kind === 'string') {
    let words = 'a string';
    const { minLength: min, maxLength: max } = field;
    if (min !== undefined && max !== undefined)
      words += min === max ? ` of ${plural(min, 'character')}` : ` of ${min} to ${max} characters`;
    else if (min !== undefined) words += ` of at least ${plural(min, 'character')}`;
    else if (max !== undefined) words += ` of at most ${plural(max, 'character')}`;
    if (field.pattern !== undefined) words += ` matching ${field.pattern}`;
    return words;
  }
  if (field.kind === 'int32' || field.kind === 'int64') return `an integer between ${field.low} and ${field.high}`;
  const bounds = [];
  if (field.minimum !== undefined) bounds.push(`at least ${field.minimum}`);
  if (field.exclusiveMinimum !== undefined) bounds.push(`greater than ${field.exclusiveMinimum}`);
  if (field.maximum !== undefined) bounds.push(`at most ${field.maximum}`);
  if (field.exclusiveMaximum !== undefined) bounds.push(`less than ${field.exclusiveMaximum}`);
  return bounds.length === 0 ? 'a number' : `a number ${bounds.join(' and ')}`;
}

/** The 40002 messages: the body's, then each field's (required, then invalid), keyed `<field>Required`, `<field>Invalid`. */
export function plantMessages(fields) {
  const messages = { notObject: 'body must be a JSON object' };
  for (const field of fields) {
    if (field.required) messages[`${field.name}Required`] = `${field.name} is required`;
    messages[`${field.name}Invalid`] =
      `${field.name} must be ${ruleWords(field)}${field.required ? '' : ' when present'}`;
  }
  return messages;
}

/** The 40003 message: the key stored already with other values. */
export function conflictMessage(fields) {
  const others = fields.filter((f) => !f.key).map((f) => f.name);
  const list = others.length <= 1 ? others.join('') : `${others.slice(0, -1).join(', ')} or ${others.at(-1)}`;
  return `${KEY} is stored already with a different ${list}`;
}

// ---- code ----------------------------------------------------------------------------------------

const str = (value) => JSON.stringify(value);
const prop = (object, name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `${object}.${name}` : `${object}[${str(name)}]`);
const member = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : str(name));
const local = (index) => `f${index}`;

/** The TypeScript type of a stored field's value. */
function valueType(field, { int64 = 'bigint' } = {}) {
  if (field.enum !== undefined) return field.enum.map((v) => str(v)).join(' | ');
  if (field.kind === 'int64') return int64;
  if (field.kind === 'string' || field.kind === 'boolean') return field.kind;
  return 'number';
}

/** `name: type` lines of an interface of plants. */
function interfaceBody(fields, options) {
  return fields
    .map(
      (f) =>
        `  readonly ${member(f.name)}${f.required ? '' : '?'}: ${valueType(f, options)}${f.required || !options?.undefinedOk ? '' : ' | undefined'};`,
    )
    .join('\n');
}

/** A boolean expression: `v`, already of the field's JavaScript type, satisfies the field's keywords. */
function ruleExpression(field, v) {
  const parts = [];
  if (field.enum !== undefined)
    return `(${field.enum.map((e) => `${v} === ${field.kind === 'int64' ? `${e}n` : str(e)}`).join(' || ')})`;
  if (field.kind === 'string') {
    if (field.minLength !== undefined && field.minLength > 0) parts.push(`codePoints(${v}) >= ${field.minLength}`);
    if (field.maxLength !== undefined) parts.push(`codePoints(${v}) <= ${field.maxLength}`);
    if (field.pattern !== undefined) parts.push(`${patternName(field)}.test(${v})`);
  } else if (field.kind === 'int32' || field.kind === 'int64') {
    const suffix = field.kind === 'int64' ? 'n' : '';
    // int64: int64FromNumberText and the bigint checks already hold the format's range.
    const [formatLow, formatHigh] = INT_FORMATS[field.kind];
    if (field.kind === 'int32' || field.low !== formatLow) parts.push(`${v} >= ${field.low}${suffix}`);
    if (field.kind === 'int32' || field.high !== formatHigh) parts.push(`${v} <= ${field.high}${suffix}`);
  } else if (field.kind === 'number') {
    if (field.minimum !== undefined) parts.push(`${v} >= ${field.minimum}`);
    if (field.exclusiveMinimum !== undefined) parts.push(`${v} > ${field.exclusiveMinimum}`);
    if (field.maximum !== undefined) parts.push(`${v} <= ${field.maximum}`);
    if (field.exclusiveMaximum !== undefined) parts.push(`${v} < ${field.exclusiveMaximum}`);
  }
  return parts.length === 0 ? '' : parts.join(' && ');
}

const patternName = (field) => `PATTERN_${field.name.replace(/[^\w]/g, '_').toUpperCase()}`;

/** Module-level helpers the checks use: compiled patterns, and code points for lengths (JSON Schema counts them). */
function ruleHelpers(fields) {
  const lines = [];
  for (const field of fields) {
    if (field.pattern !== undefined) {
      lines.push(
        `// JSON Schema patterns are ECMA-262 with unicode semantics, and match anywhere unless anchored.\nconst ${patternName(field)} = new RegExp(${str(field.pattern)}, 'u');`,
      );
    }
  }
  if (fields.some((f) => f.kind === 'string' && (f.minLength > 0 || f.maxLength !== undefined))) {
    lines.push(`/** A string's length in code points, as JSON Schema's minLength and maxLength count (a lone surrogate is one). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}`);
  }
  return lines.join('\n\n');
}

/** A boolean expression: `v` (unknown) is of the field's JavaScript type, int64 aside. */
function typeExpression(field, v) {
  switch (field.kind) {
    case 'string':
      return `typeof ${v} === 'string'`;
    case 'boolean':
      return `typeof ${v} === 'boolean'`;
    case 'int32':
      return `typeof ${v} === 'number' && Number.isInteger(${v})`;
    case 'number':
      return `typeof ${v} === 'number' && Number.isFinite(${v})`;
    default:
      throw new Error(`no plain type check for ${field.kind}`);
  }
}

/** Writes the JSON text of `v`, a valid value of the field. */
function jsonOf(field, v) {
  return field.kind === 'string' ? `JSON.stringify(${v})` : `String(${v})`;
}

/**
 * Statements that append the JSON members of `fields` of the object `p` to `out`, in order: `{` first,
 * a member per present field, `}` last. Before the first required field an optional one needs a run-time
 * comma; after it, every member starts with one.
 */
function writerBody(fields, p) {
  const lines = [];
  let sure = false;
  let first = true;
  for (const field of fields) {
    const value = jsonOf(field, prop(p, field.name));
    const key = str(str(field.name) + ':');
    if (field.required) {
      const lead = first ? '' : sure ? ',' : null;
      if (lead === null) lines.push(`  out += (out.length > 1 ? ',' : '') + ${key} + ${value};`);
      else lines.push(`  out += ${str(lead + str(field.name) + ':')} + ${value};`);
      sure = true;
    } else {
      const comma = sure ? str(',' + str(field.name) + ':') : `(out.length > 1 ? ',' : '') + ${key}`;
      lines.push(`  if (${prop(p, field.name)} !== undefined) out += ${comma} + ${value};`);
    }
    first = false;
  }
  return `  let out = '{';\n${lines.join('\n')}\n  return out + '}';`;
}

const header = (
  what,
) => `// This file is generated from openapi.yaml's Plant and NewPlant by \`npm run generate\`${what}. Do not edit
// it by hand: the tests fail when it differs from what the generator writes.
`;

/** A TypeScript literal of one field's description, for the shape table. */
function fieldLiteral(field) {
  const entries = [`name: ${str(field.name)}`, `type: ${str(field.type)}`, `kind: ${str(field.kind)}`];
  if (field.format !== undefined) entries.push(`format: ${str(field.format)}`);
  entries.push(`required: ${field.required}`, `answered: ${field.answered}`);
  if (field.kind === 'int32' || field.kind === 'int64') {
    const s = field.kind === 'int64' ? 'n' : '';
    entries.push(`minimum: ${field.low}${s}`, `maximum: ${field.high}${s}`);
  }
  for (const keyword of ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum']) {
    if (field.kind === 'number' && field[keyword] !== undefined) entries.push(`${keyword}: ${field[keyword]}`);
  }
  for (const keyword of ['minLength', 'maxLength', 'pattern', 'enum', 'examples']) {
    if (field[keyword] !== undefined) entries.push(`${keyword}: ${JSON.stringify(field[keyword])}`);
  }
  return `  { ${entries.join(', ')} },`;
}

/** The module both the core and the client hold: the field table, the messages and the plant types. */
export function renderShapeModule(fields) {
  const messages = plantMessages(fields);
  const messageLines = Object.entries(messages).map(([k, m]) => `  ${member(k)}: ${str(m)},`);
  return `${header('')}
/** One field of a plant, as the service's OpenAPI document describes it (the keywords the service enforces). */
export interface PlantField {
  /** The JSON member's name. */
  readonly name: string;
  /** The JSON Schema type. */
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  /** How a value is held: int64 as a bigint, int32 and number as a number. */
  readonly kind: 'string' | 'int32' | 'int64' | 'number' | 'boolean';
  readonly format?: 'int32' | 'int64' | 'double' | 'float';
  /** Whether a NewPlant must have it. */
  readonly required: boolean;
  /** Whether the service answers it (a field of \`Plant\`); \`id\` is kept, never answered. */
  readonly answered: boolean;
  /** An integer's effective bounds (the format's range narrowed by the keywords), or a number's keywords. */
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  /** A string's bounds, in code points. */
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly enum?: readonly (string | number)[];
  /** The spec's examples of the field, which \`makePlants\` draws from. */
  readonly examples?: readonly unknown[];
}

/** Every field of a stored plant: NewPlant's own (the key, \`id\`) first, then Plant's, in the spec's order. */
export const PLANT_FIELDS: readonly PlantField[] = [
${fields.map(fieldLiteral).join('\n')}
];

/** The messages of the service's 40002 answers, byte for byte: one per rule, each naming its field. */
export const PLANT_MESSAGES = {
${messageLines.join('\n')}
} as const;

/** One of {@link PLANT_MESSAGES}. */
export type PlantMessage = (typeof PLANT_MESSAGES)[keyof typeof PLANT_MESSAGES];

/** The message of the service's 40003 answer. */
export const CONFLICT_MESSAGE = ${str(conflictMessage(fields))};

/** The name of one of NewPlant's fields. */
export type NewPlantField = ${fields.map((f) => str(f.name)).join(' | ')};

/** The names of the fields that are int64: kept as bigints, sent exactly (a bigint, or a safe-integer number). */
export type Int64Field = ${
    fields
      .filter((f) => f.kind === 'int64')
      .map((f) => str(f.name))
      .join(' | ') || 'never'
  };
`;
}

/** The core's codec: the 40002 check of a parsed body, the check of a plant from JS, the 200 body, equality. */
export function renderCoreCodec(fields) {
  const readLines = [];
  const jsLines = [];
  fields.forEach((field, index) => {
    const v = local(index);
    const messages = {
      required: `PLANT_MESSAGES[${str(`${field.name}Required`)}]`,
      invalid: `PLANT_MESSAGES[${str(`${field.name}Invalid`)}]`,
    };
    const rule = ruleExpression(field, v);
    const has = `hasOwn.call(body, ${str(field.name)})`;
    // readNewPlant: from JSON.parse's value and the body's text.
    if (field.required) readLines.push(`  if (!${has}) return ${messages.required};`);
    if (field.kind === 'int64') {
      const get = `typeof ${prop('body', field.name)} === 'number' ? int64FromNumberText(topLevelMemberText(text, ${str(field.name)})!) : undefined`;
      if (field.required) {
        readLines.push(
          `  const ${v} = ${get};`,
          `  if (${v} === undefined${rule ? ` || !(${rule})` : ''}) return ${messages.invalid};`,
        );
      } else {
        readLines.push(
          `  let ${v}: bigint | undefined;`,
          `  if (${has}) {`,
          `    ${v} = ${get};`,
          `    if (${v} === undefined${rule ? ` || !(${rule})` : ''}) return ${messages.invalid};`,
          '  }',
        );
      }
    } else {
      const check = `!(${typeExpression(field, v)}${rule ? ` && ${rule}` : ''})`;
      const type = valueType(field);
      if (field.required) {
        readLines.push(
          `  const ${v} = ${prop('body', field.name)} as ${type};`,
          `  if (${check}) return ${messages.invalid};`,
        );
      } else {
        readLines.push(
          `  let ${v}: ${type} | undefined;`,
          `  if (${has}) {`,
          `    ${v} = ${prop('body', field.name)} as ${type};`,
          `    if (${check}) return ${messages.invalid};`,
          '  }',
        );
      }
    }
    // toStoredPlant: from any JS value; an int64 may be a bigint or a safe-integer number.
    const raw = `r${index}`;
    jsLines.push(`  const ${raw} = ${prop('input', field.name)};`);
    if (field.required)
      jsLines.push(`  if (${raw} === undefined) throw new TypeError(\`plant \${${messages.required}}\`);`);
    const absent = field.required ? '' : `${raw} === undefined ? undefined : `;
    if (field.kind === 'int64') {
      jsLines.push(
        `  const ${v} = ${absent}typeof ${raw} === 'bigint' ? ${raw} : Number.isSafeInteger(${raw}) ? BigInt(${raw} as number) : undefined;`,
      );
      jsLines.push(
        `  if (${v} === undefined${field.required ? '' : ` && ${raw} !== undefined`}) throw new TypeError(\`plant \${${messages.invalid}} (a bigint, or a safe integer number); got \${show(${raw})}\`);`,
      );
      const present = field.required ? '' : `${v} !== undefined && `;
      jsLines.push(
        `  if (${present}(BigInt.asIntN(64, ${v}) !== ${v}${rule ? ` || !(${rule})` : ''})) throw new RangeError(\`plant \${${messages.invalid}}; got \${${v}}\`);`,
      );
    } else {
      const type = valueType(field);
      jsLines.push(`  const ${v} = ${raw} as ${type}${field.required ? '' : ' | undefined'};`);
      const guard = field.required ? '' : `${v} !== undefined && `;
      jsLines.push(
        `  if (${guard}!(${typeExpression(field, v)})) throw new TypeError(\`plant \${${messages.invalid}}; got \${show(${raw})}\`);`,
      );
      if (rule)
        jsLines.push(
          `  if (${guard}!(${rule})) throw new RangeError(\`plant \${${messages.invalid}}; got \${show(${raw})}\`);`,
        );
    }
  });
  const build = fields.filter((f) => f.required).map((f) => `${member(f.name)}: ${local(fields.indexOf(f))}`);
  const optional = fields
    .map((f, i) => [f, i])
    .filter(([f]) => !f.required)
    .map(([f, i]) => `  if (${local(i)} !== undefined) ${prop('plant', f.name)} = ${local(i)};`);
  const assemble = `  const plant: Mutable<StoredPlant> = { ${build.join(', ')} };\n${optional.join('\n')}${optional.length ? '\n' : ''}  return plant;`;
  const same = fields.filter((f) => !f.key).map((f) => `${prop('a', f.name)} === ${prop('b', f.name)}`);
  const answered = fields.filter((f) => f.answered);
  const helpers = ruleHelpers(fields);
  return `${header(' (scripts/plant-shape.mjs)')}
import { int64FromNumberText } from '../internal/int64.js';
import { topLevelMemberText } from '../internal/raw-member.js';
import { PLANT_MESSAGES, type PlantMessage } from './plant-shape.js';

/**
 * A plant as the service stores it: the exact int64 id and the fields of the spec's \`Plant\` (an int64
 * as a bigint). What a caller sends is the client's \`NewPlant\`; what the service answers is a \`Plant\`
 * (no id). Fields other than the spec's are never stored.
 */
export interface StoredPlant {
${interfaceBody(fields)}
}

/** A plant as code may give one to a store or the mocks: a {@link StoredPlant}, an int64 also as a safe-integer number. */
export interface PlantInput {
${interfaceBody(fields, { int64: 'bigint | number', undefinedOk: true })}
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const hasOwn = Object.prototype.hasOwnProperty;
${helpers ? `\n${helpers}\n` : ''}
/**
 * Judges \`value\`, what JSON.parse made of \`text\`, as a NewPlant: the plant to store, or the message of
 * the 40002 that refuses it (the first rule broken, in field order). Only the spec's fields are read and
 * copied. Own-property checks matter: JSON.parse makes \`__proto__\` an ordinary own member, and reading
 * through the prototype would let a polluted Object.prototype supply a field the body never had. An
 * int64 is read from the body's text, since JSON.parse rounds beyond 2^53.
 */
export function readNewPlant(value: unknown, text: string): StoredPlant | PlantMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return PLANT_MESSAGES.notObject;
  const body = value as Record<string, unknown>;
${readLines.join('\n')}
${assemble}
}

/**
 * The plant a store keeps for \`value\`: checked against the spec's rules, and copied down to the spec's
 * fields (whatever else the object carries is never stored). An int64 may be a safe-integer number
 * (\`{ id: 42 }\` is unambiguous); it is kept as a bigint. Takes \`unknown\`: it checks what types cannot.
 * @throws TypeError naming the field whose value has the wrong type, RangeError for one outside its rules.
 */
export function toStoredPlant(value: unknown): StoredPlant {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(\`a plant must be an object with the spec's fields; got \${show(value)}\`);
  }
  const input = value as Record<string, unknown>;
${jsLines.join('\n')}
${assemble}
}

/** The 200 body: the stored plant's answered fields (the spec's \`Plant\`), never the id. */
export function writePlant(plant: StoredPlant): string {
${writerBody(answered, 'plant')}
}

/** Whether two plants under one id are the same create (a replay) rather than a conflict: every field equal. */
export function samePlant(a: StoredPlant, b: StoredPlant): boolean {
  return ${same.length ? same.join(' && ') : 'true'};
}

/** A value, named for a message without quoting a long string. */
function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : JSON.stringify(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return typeof value === 'bigint' ? \`\${value}n\` : String(value);
}
`;
}

/** What a form holds for a field: text for strings and numbers, a boolean for a checkbox. */
function formType(field) {
  return field.kind === 'boolean' ? 'boolean' : 'string';
}

/** The client's codec: the body writer, the validator's field checks, the form's conversion, the answer's check. */
export function renderClientCodec(fields) {
  const writeLines = [];
  const issueLines = [];
  const formLines = [];
  const messages = plantMessages(fields);
  fields.forEach((field, index) => {
    const v = local(index);
    const name = str(field.name);
    const invalid = `PLANT_MESSAGES[${str(`${field.name}Invalid`)}]`;
    const rule = ruleExpression(field, field.kind === 'int64' ? `BigInt(${v} as number | bigint)` : v);
    // writeNewPlant: the types only (the service answers the rules with 40002); an int64 must be exact.
    const absentOk = field.required ? '' : `${v} !== undefined && `;
    writeLines.push(`  const ${v} = ${prop('plant', field.name)};`);
    if (field.kind === 'int64') {
      writeLines.push(
        `  if (${absentOk}(typeof ${v} === 'bigint' ? BigInt.asIntN(64, ${v}) !== ${v} : !Number.isSafeInteger(${v}))) {`,
        `    throw new TypeError(\`${messages[`${field.name}Invalid`]}; numbers above 2^53-1 must be passed as bigint (got \${${v} as number})\`);`,
        '  }',
      );
    } else {
      writeLines.push(
        `  if (${absentOk}!(${typeExpression(field, v)})) throw new TypeError(${str(messages[`${field.name}Invalid`])});`,
      );
    }
    // newPlantIssues: every rule, as the service judges them, one issue per field at fault.
    issueLines.push(`  const ${v} = ${prop('body', field.name)};`);
    const valid =
      field.kind === 'int64'
        ? `(typeof ${v} === 'bigint' ? BigInt.asIntN(64, ${v}) === ${v} : Number.isSafeInteger(${v}))${rule ? ` && ${rule}` : ''}`
        : `${typeExpression(field, v)}${rule ? ` && ${rule}` : ''}`;
    const message =
      field.kind === 'int64'
        ? `unsafeNumber(${v}) ? ${str(`${field.name} beyond ±(2^53-1) must be a bigint: a number that large may have been rounded already`)} : ${invalid}`
        : invalid;
    const judge = `if (!(${valid})) issues.push([${message}, ${name}]);\n    else ${prop('plant', field.name)} = ${v};`;
    if (field.required) {
      issueLines.push(
        `  if (${v} === undefined) issues.push([PLANT_MESSAGES[${str(`${field.name}Required`)}], ${name}]);`,
        `  else ${judge.replace('\n    ', '\n  ')}`,
      );
    } else {
      issueLines.push(`  if (${v} !== undefined) {`, `    ${judge}`, '  }');
    }
    // fromForm: text to the field's value; an empty optional field is absent.
    const read = {
      string: undefined,
      boolean: undefined,
      int64: 'int64FromText',
      int32: 'int32FromText',
      number: 'numberFromText',
    }[field.kind];
    const value = prop('values', field.name);
    if (read !== undefined)
      formLines.push(`    ${member(field.name)}: typeof ${value} === 'string' ? ${read}(${value}) : ${value},`);
    else if (field.kind === 'string' && !field.required)
      formLines.push(`    ${member(field.name)}: ${value} === '' ? undefined : ${value},`);
    else formLines.push(`    ${member(field.name)}: ${value},`);
  });
  const kinds = new Set(fields.map((f) => f.kind));
  const answered = fields.filter((f) => f.answered);
  const answerChecks = answered.map((f) => {
    const v = prop('p', f.name);
    const check = typeExpression(f, v);
    return f.required ? `${check}` : `(${v} === undefined || ${check})`;
  });
  const formReaders = [];
  if (kinds.has('int64')) {
    formReaders.push(`/** An int64 from a form's text, exactly: a number up to 2^53-1, a bigint beyond; other text is passed on for the rule to refuse. */
function int64FromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  // At most 20 digits: more is out of the int64 range anyway, and BigInt need not read a pasted novel.
  if (!/^-?\\d{1,20}$/.test(trimmed)) return trimmed;
  const value = BigInt(trimmed);
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}`);
  }
  if (kinds.has('int32')) {
    formReaders.push(`/** An int32 from a form's text; other text is passed on for the rule to refuse. */
function int32FromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\\d{1,11}$/.test(trimmed) ? Number(trimmed) : trimmed;
}`);
  }
  if (kinds.has('number')) {
    formReaders.push(`/** A number from a form's text, as JSON writes numbers; other text is passed on for the rule to refuse. */
function numberFromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}`);
  }
  const helpers = ruleHelpers(fields);
  return `${header(' (scripts/plant-shape.mjs)')}
import type { NewPlant, Plant } from '../types.js';
import { PLANT_MESSAGES, type NewPlantField } from './plant-shape.js';

/**
 * What a form holds for a plant: text for strings and numbers (an int64 converted exactly), a boolean
 * for a true-or-false field. An empty optional field means the field is absent.
 */
export interface NewPlantFormValues {
${fields.map((f) => `  readonly ${member(f.name)}${f.required ? '' : '?'}: ${formType(f)}${f.required ? '' : ' | undefined'};`).join('\n')}
}
${helpers ? `\n${helpers}\n` : ''}
/**
 * Checks a create's input and writes its JSON body, so input that cannot be sent faithfully never
 * reaches the wire. JSON.stringify cannot write a bigint, so an int64 is written from its exact digits.
 * Only the spec's fields are written: anything else on the object stays on the caller's side.
 */
export function writeNewPlant(plant: NewPlant): string {
  if (typeof plant !== 'object' || plant === null) throw new TypeError('newPlant must be an object');
${writeLines.join('\n')}
${writerBody(fields, 'plant')}
}

/**
 * Every rule \`body\` breaks as a NewPlant, each \`[message, field]\` in the service's order, with the
 * service's messages; and the plant of the spec's fields that are valid. \`undefined\` means absent.
 */
export function newPlantIssues(body: Record<string, unknown>): { issues: [string, NewPlantField][]; plant: Record<string, unknown> } {
  const issues: [string, NewPlantField][] = [];
  const plant: Record<string, unknown> = {};
${issueLines.join('\n')}
  return { issues, plant };
}
${
  kinds.has('int64')
    ? `
/** A whole number inside the int64 range that a double cannot hold exactly: in range for the service, but not sendable as a number. */
function unsafeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
}
`
    : ''
}
/** A form's values as a NewPlant candidate, for {@link newPlantIssues}. */
export function newPlantFromForm(values: Record<string, unknown>): Record<string, unknown> {
  return {
${formLines.join('\n')}
  };
}
${formReaders.length ? `\n${formReaders.join('\n\n')}\n` : ''}
/** Whether an answer's parsed body is a spec \`Plant\`: every answered field present when required, and of its type. */
export function isPlant(value: unknown): value is Plant {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return ${answerChecks.length ? answerChecks.join(' && ') : 'true'};
}
`;
}
