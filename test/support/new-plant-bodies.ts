// Request bodies drawn from openapi.yaml's NewPlant, and the verdict the spec gives each. The spec is
// read here at test time, never through the generated shape, so the tests that hold the core's and the
// client's validation to it do not trust the generator they check: every key, type, bound, length,
// pattern and enum comes from the document, and Ajv compiles its schemas. A field added to the spec
// is drawn, judged and counted at once.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { load } from 'js-yaml';
import { expect } from 'vitest';
import { topLevelMemberText } from '../../packages/core/src/internal/raw-member.js';

type Schema = Readonly<Record<string, any>>;

/** One of NewPlant's fields, as the spec writes it. */
export interface SpecField {
  readonly name: string;
  readonly schema: Schema;
  readonly required: boolean;
  /** How the service holds a value: an int64 exactly (read from the text), int32 and number as doubles. */
  readonly kind: 'string' | 'int32' | 'int64' | 'number' | 'boolean';
}

const spec = load(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const schemas = spec.components.schemas;

const objectFields = (schema: Schema): SpecField[] =>
  Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, field]) => ({
    name,
    schema: field,
    required: ((schema.required ?? []) as string[]).includes(name),
    kind: field.type === 'integer' ? field.format : field.type,
  }));

/**
 * NewPlant's fields in the order the service checks them (docs/service.md: the first field at fault
 * is named): NewPlant's own (the key, `id`) first, then those of the Plant it refers to.
 */
export const SPEC_FIELDS: readonly SpecField[] = (() => {
  const parts = schemas.NewPlant!.allOf as Schema[];
  const own = parts.filter((part) => part.$ref === undefined).flatMap(objectFields);
  const referred = parts
    .filter((part) => part.$ref !== undefined)
    .flatMap((part) => objectFields(schemas[(part.$ref as string).split('/').pop()!]!));
  return [...own, ...referred];
})();

/** The fields the service answers: the spec's Plant's. */
const ANSWERED = new Set(Object.keys(schemas.Plant!.properties ?? {}));

/** The 200 body the spec gives for `plant`: its members that are Plant's fields. */
export const plantAnswer = (plant: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(plant).filter(([name, value]) => ANSWERED.has(name) && value !== undefined));

/**
 * `plant` with every zero as +0: JSON writes -0 as 0, the service compares plants with `===` and a
 * store need not keep the sign of a zero, so a test compares plants without it.
 */
export const unsigned = (plant: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(plant).map(([name, value]) => [name, value === 0 ? 0 : value]));

/** The JSON body of `plant`, its members in its order, an int64 written as its digits. */
export const plantBody = (plant: object): string =>
  `{${Object.entries(plant)
    .map(([name, value]) => `${JSON.stringify(name)}:${typeof value === 'bigint' ? value : JSON.stringify(value)}`)
    .join(',')}}`;

// ---- the judge: Ajv over the spec --------------------------------------------------------------

const ajv = new Ajv2020({ strict: true, allErrors: false });
ajv.addKeyword('x-error-codes');
// Doubles hold int32 exactly, and an int64 reaches Ajv as a double of the same standing (int64Standing).
ajv.addFormat('int64', { type: 'number', validate: (x: number) => x >= -(2 ** 63) && x < 2 ** 63 });
ajv.addFormat('int32', { type: 'number', validate: (x: number) => x >= -(2 ** 31) && x < 2 ** 31 });
ajv.addFormat('double', true);
ajv.addFormat('float', true);
// The spec's refs point into components.schemas; served here as $defs of one document.
const defs = JSON.parse(JSON.stringify(schemas).replaceAll('#/components/schemas/', '#/$defs/'));
const newPlantValid = ajv.compile({ $defs: defs, $ref: '#/$defs/NewPlant' });
const fieldValid = new Map(SPEC_FIELDS.map((field) => [field.name, ajv.compile(field.schema)]));

const NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact value of a JSON number's text: a bigint when it is an integer (`1.0`, `1e2` are: JSON
 * Schema's `integer` is a number with a zero fractional part), else `'fraction'`. Exponents beyond
 * ±400 are read as ±400: no int64 is near either.
 */
function exactNumber(text: string): bigint | 'fraction' {
  const [, sign, whole = '', fraction = '', exponent = '0'] = NUMBER.exec(text)!;
  let digits = (whole + fraction).replace(/^0+/, '');
  let scale = Math.max(-400, Math.min(400, Number(exponent))) - fraction.length;
  if (digits === '') return 0n;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale++;
  }
  if (scale < 0) return 'fraction';
  return (sign === '-' ? -1n : 1n) * BigInt(digits) * 10n ** BigInt(scale);
}

/**
 * The value an int64 member's text stands for, as a double of the same standing against the spec:
 * JSON.parse rounds past 2^53, so an integer beyond is given as 2^53+2 inside the int64 range (every
 * keyword the spec can hold exactly is within 2^53) and as ±2^63 or beyond outside it; a fraction as 0.5.
 */
function int64Standing(text: string): number {
  const exact = exactNumber(text);
  if (exact === 'fraction') return 0.5;
  const safe = 2n ** 53n;
  if (exact >= -safe && exact <= safe) return Number(exact);
  if (exact >= -(2n ** 63n) && exact < 2n ** 63n) return exact > 0n ? 2 ** 53 + 2 : -(2 ** 53) - 2;
  return exact > 0n ? 2 ** 63 : -(2 ** 63) - 2048;
}

// ---- bodies ----------------------------------------------------------------------------------

/** A request body: its JSON text, and the raw text of each top-level member (the last of duplicates). */
export interface Body {
  readonly text: string;
  readonly members: ReadonlyMap<string, string>;
}

/** A body of JSON text from elsewhere (a table of cases): its int64 members read with the core's scanner. */
export function bodyOf(text: string): Body {
  const members = new Map<string, string>();
  const value = JSON.parse(text);
  if (isObject(value)) {
    for (const field of SPEC_FIELDS) {
      const raw = Object.hasOwn(value, field.name) ? topLevelMemberText(text, field.name) : undefined;
      if (raw !== undefined) members.set(field.name, raw);
    }
  }
  return { text, members };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What JSON.parse makes of the body, with each int64 member replaced by `int64(itsText)`. */
function parseWith(body: Body, int64: (text: string) => unknown): unknown {
  const value = JSON.parse(body.text);
  if (!isObject(value)) return value;
  for (const field of SPEC_FIELDS) {
    const raw = body.members.get(field.name);
    if (field.kind === 'int64' && raw !== undefined && typeof value[field.name] === 'number')
      value[field.name] = int64(raw);
  }
  return value;
}

/**
 * Stands for a JSON number no double holds, as lossless JSON parsers do: a fraction such as
 * 1.00000000000000000001, which JSON.parse would turn into the integer 1.
 */
class LosslessNumber {
  constructor(readonly text: string) {}
}

/**
 * The body as a caller holds it for the client's validator: JSON.parse, with each int64 member read
 * exactly, a number up to 2^53-1 and a bigint beyond (as the client asks), a fraction that a double
 * would round to an integer kept as a {@link LosslessNumber}.
 */
export function callerValue(body: Body): unknown {
  return parseWith(body, (text) => {
    const exact = exactNumber(text);
    if (exact === 'fraction') return Number.isInteger(Number(text)) ? new LosslessNumber(text) : Number(text);
    return Number.isSafeInteger(Number(exact)) ? Number(exact) : exact;
  });
}

/** Why a value is not one of a field's, or `valid`: the spec's keywords, read here and held to Ajv's verdict. */
export type Label = 'valid' | 'absent' | 'type' | 'enum' | 'short' | 'long' | 'pattern' | 'below' | 'above';

const FORMAT_RANGE = { int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n] } as const;

/** A field's value as the service reads it: an int64 number exactly from its text, anything else as JSON.parse made it. */
function readValue(field: SpecField, parsed: unknown, raw: string | undefined): unknown {
  if (field.kind !== 'int64' || typeof parsed !== 'number' || raw === undefined) return parsed;
  const exact = exactNumber(raw);
  return exact === 'fraction' ? parsed : exact;
}

/** The order of `value` and a bound YAML read as a double: negative below, 0 at, positive above. */
function compare(value: number | bigint, bound: number): number {
  if (typeof value === 'number') return value < bound ? -1 : value > bound ? 1 : 0;
  if (!Number.isInteger(bound)) return value <= BigInt(Math.floor(bound)) ? -1 : 1;
  return value < BigInt(bound) ? -1 : value > BigInt(bound) ? 1 : 0;
}

/** What is wrong with `value` for `field`: its type first, then the enum, lengths, pattern or bounds. */
function labelOf(field: SpecField, value: unknown): Label {
  const { schema, kind } = field;
  const typed = {
    string: typeof value === 'string',
    boolean: typeof value === 'boolean',
    // JSON.parse makes 1e400 Infinity, which no judge takes for a number.
    number: typeof value === 'number' && Number.isFinite(value),
    int32: Number.isInteger(value),
    int64: typeof value === 'bigint',
  }[kind];
  if (!typed) return 'type';
  if (schema.enum !== undefined) {
    const members = (schema.enum as unknown[]).map((m) => (kind === 'int64' ? BigInt(m as number) : m));
    return members.includes(value) ? 'valid' : 'enum';
  }
  if (kind === 'string') {
    const length = [...(value as string)].length;
    if (length < (schema.minLength ?? 0)) return 'short';
    if (length > (schema.maxLength ?? Number.POSITIVE_INFINITY)) return 'long';
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value as string)) return 'pattern';
    return 'valid';
  }
  if (kind === 'boolean') return 'valid';
  const number = value as number | bigint;
  if (kind !== 'number') {
    const [low, high] = FORMAT_RANGE[kind];
    if (BigInt(number) < low) return 'below';
    if (BigInt(number) > high) return 'above';
  }
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (minimum !== undefined && compare(number, minimum) < 0) return 'below';
  if (exclusiveMinimum !== undefined && compare(number, exclusiveMinimum) <= 0) return 'below';
  if (maximum !== undefined && compare(number, maximum) > 0) return 'above';
  if (exclusiveMaximum !== undefined && compare(number, exclusiveMaximum) >= 0) return 'above';
  return 'valid';
}

/** What the spec says of a body: accepted, or refused with the message key of the first field at fault. */
export type Verdict =
  | { readonly accepted: true; readonly plant: Readonly<Record<string, unknown>> }
  | { readonly accepted: false; readonly key: string; readonly field?: string; readonly label?: Label };

/**
 * The spec's verdict on `body`: Ajv over NewPlant, and for a refusal the first field at fault in
 * {@link SPEC_FIELDS}' order, `<field>Required` when absent, `<field>Invalid` when Ajv refuses its
 * value; `notObject` for a body that is not an object. Asserts on the way that Ajv judges each field as
 * the spec's keywords read here do, and NewPlant as a whole as its fields: a drift in either is this
 * module's error, found here. An accepted body's plant: the spec's fields, an int64 exactly.
 */
export function specVerdict(body: Body): Verdict {
  const standing = parseWith(body, int64Standing);
  const whole = newPlantValid(standing);
  const value = JSON.parse(body.text);
  if (!isObject(value)) {
    expect(whole, body.text).toBe(false);
    return { accepted: false, key: 'notObject' };
  }
  let fault: Verdict | undefined;
  const plant: Record<string, unknown> = {};
  for (const field of SPEC_FIELDS) {
    if (!Object.hasOwn(value, field.name)) {
      if (field.required)
        fault ??= { accepted: false, key: `${field.name}Required`, field: field.name, label: 'absent' };
      continue;
    }
    const raw = body.members.get(field.name);
    const read = readValue(field, value[field.name], raw);
    const label = labelOf(field, read);
    const ajvValue = (standing as Record<string, unknown>)[field.name];
    expect(fieldValid.get(field.name)!(ajvValue), `Ajv on ${field.name} ${raw ?? ''}, read as ${label}`).toBe(
      label === 'valid',
    );
    if (label !== 'valid') fault ??= { accepted: false, key: `${field.name}Invalid`, field: field.name, label };
    plant[field.name] = read;
  }
  expect(whole, `Ajv on NewPlant ${body.text.slice(0, 200)}`).toBe(fault === undefined);
  return fault ?? { accepted: true, plant };
}

// ---- the generators ---------------------------------------------------------------------------

/** Any UTF-16 code unit, lone surrogates included, and the NUL and astral edges. */
const anyUnit = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((unit) => String.fromCharCode(unit)) },
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom('\u0000', '\uD800', '\uDFFF', '🌱', '\u{10FFFF}'),
);

/** Every JSON type, a few of each, as text. */
const anyJson = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-1', '1.5', '"x"', '""', '[]', '[1,"a"]', '{}', '{"a":null}'),
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
);

/** The next double after `x`, up or down. */
function nextDouble(x: number, up: boolean): number {
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] = bits[0]! + (x > 0 === up ? 1n : -1n);
  return new Float64Array(bits.buffer)[0]!;
}

/** Strings around a length, in code points: n-1, n and n+1 of plain, astral, lone-surrogate and NUL units. */
const aroundLength = (n: number): string[] =>
  [n - 1, n, n + 1]
    .filter((k) => k >= 0)
    .flatMap((k) =>
      ['x', '🌱', '\uD800', '\u0000'].map((unit) => unit.repeat(k)).concat(`${'x'.repeat(Math.max(0, k - 1))}🌱`),
    );

/** Text of values for a string field: any text near its lengths, around each bound, its pattern's matches and misses. */
function stringTexts(schema: Schema): fc.Arbitrary<string>[] {
  const min: number = schema.minLength ?? 0;
  const max: number = schema.maxLength ?? min + 16;
  const texts: fc.Arbitrary<string>[] = [
    fc.string({ unit: anyUnit, minLength: Math.max(0, min - 2), maxLength: max + 2 }),
    fc.constantFrom('', ' ', '\u0000', '\uD800', '\uDFFF', 'x\uDC00\uD800y', '🌱', '\u2028', '__proto__'),
  ];
  const bounds = [schema.minLength, schema.maxLength].filter((n): n is number => n !== undefined);
  if (bounds.length > 0) texts.push(fc.constantFrom(...bounds.flatMap(aroundLength)));
  if (schema.pattern !== undefined) {
    const matches = fc.stringMatching(new RegExp(schema.pattern, 'u'), { maxLength: max + 2 });
    texts.push(
      matches,
      matches.map((match) => `${match}\u0000`),
      matches.map((match) => match.slice(1)),
    );
  }
  return texts.map((text) => text.map((value) => JSON.stringify(value)));
}

/** An integer field's range: the format's, narrowed by the keywords (an exclusive one to the next integer). */
function integerRange(field: SpecField): [bigint, bigint] {
  const { schema } = field;
  const [formatLow, formatHigh] = FORMAT_RANGE[field.kind as 'int32' | 'int64'];
  const keyword = (name: string, round: (x: number) => number, step: bigint) =>
    schema[name] === undefined ? [] : [BigInt(round(schema[name])) + step];
  const low = [formatLow, ...keyword('minimum', Math.ceil, 0n), ...keyword('exclusiveMinimum', Math.floor, 1n)];
  const high = [formatHigh, ...keyword('maximum', Math.floor, 0n), ...keyword('exclusiveMaximum', Math.ceil, -1n)];
  return [low.reduce((a, b) => (a > b ? a : b)), high.reduce((a, b) => (a < b ? a : b))];
}

/** Text of values for an integer field: any in its range, around each bound and the format's edges, other spellings. */
function integerTexts(field: SpecField): fc.Arbitrary<string>[] {
  const [low, high] = integerRange(field);
  const [formatLow, formatHigh] = FORMAT_RANGE[field.kind as 'int32' | 'int64'];
  const edges = [low, high, formatLow, formatHigh, 0n, 2n ** 53n, -(2n ** 53n), 2n ** 64n].flatMap((n) => [
    n - 1n,
    n,
    n + 1n,
  ]);
  const spellings = [
    '1.0',
    '1e2',
    '1E+2',
    '100e-2',
    '-0',
    '0.5',
    '1.5',
    '-1.5',
    '1.00000000000000000001',
    '1e400',
    '-1e400',
    '12e-1',
  ];
  return [
    fc.bigInt({ min: low, max: high }).map(String),
    fc.bigInt({ min: low - 2n ** 64n, max: low - 1n }).map(String),
    fc.bigInt({ min: high + 1n, max: high + 2n ** 64n }).map(String),
    fc.constantFrom(...edges.map(String)),
    fc
      .tuple(fc.bigInt({ min: low, max: high }), fc.constantFrom('.0', '.5', 'e0', '.000000000000000000001'))
      .map(([n, tail]) => `${n}${tail}`),
    fc.constantFrom(...spellings),
  ];
}

/** Text of values for a number field: any double near its bounds, each bound and its neighbours, the extremes. */
function numberTexts(schema: Schema): fc.Arbitrary<string>[] {
  const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']
    .map((name) => schema[name] as number | undefined)
    .filter((n): n is number => n !== undefined);
  const edges = [0, 0.1, -0.1, 1e300, -1e300, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53 + 2];
  for (const bound of bounds) edges.push(bound, nextDouble(bound, true), nextDouble(bound, false));
  return [
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
    fc
      .double({ noNaN: true, min: Math.min(0, ...bounds) - 10, max: Math.max(0, ...bounds) + 10 })
      .map((x) => JSON.stringify(x)),
    fc.constantFrom(...edges.map((x) => JSON.stringify(x)), '-0', '1e400', '-1e400', '1.0'),
  ];
}

/** The text of a value for `field`: mostly of its type, around its rules; now and then any JSON value. */
function valueText(field: SpecField): fc.Arbitrary<string> {
  const { schema, kind } = field;
  const own: fc.Arbitrary<string>[] =
    kind === 'string'
      ? stringTexts(schema)
      : kind === 'number'
        ? numberTexts(schema)
        : kind === 'boolean'
          ? [fc.constantFrom('true', 'false')]
          : integerTexts(field);
  if (schema.enum !== undefined) {
    const members = schema.enum as (string | number)[];
    const near = members.flatMap((m): (string | number)[] =>
      typeof m === 'string' ? [`${m}x`, m.slice(0, -1), m.toUpperCase(), ` ${m}`] : [m + 1, m - 1, m + 0.5],
    );
    own.push(fc.constantFrom(...members, ...members, ...near).map((m) => JSON.stringify(m)));
  }
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...own) }, { weight: 1, arbitrary: anyJson });
}

/** Keys no field has: unknown ones, the prototype's, and near misses of each field's name. */
const names = new Set(SPEC_FIELDS.map((field) => field.name));
const extraKey = fc
  .oneof(
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'),
    fc.constantFrom(
      ...SPEC_FIELDS.flatMap(({ name }) => [`${name}x`, name.toUpperCase(), ` ${name}`, `${name}\u0000`]),
    ),
    fc.string({ maxLength: 8 }),
  )
  .filter((key) => !names.has(key));

/** A plant-looking object, to be the value of `__proto__` or `constructor`: what polluting a prototype would take. */
const pollution = fc
  .tuple(...SPEC_FIELDS.map(valueText))
  .map((texts) => `{${texts.map((text, i) => `${JSON.stringify(SPEC_FIELDS[i]!.name)}:${text}`).join(',')}}`);

/** The next double after `x`, towards `to`. */
const towards = (x: number, to: number): number => nextDouble(x, to > x);

/**
 * The text of a value within `field`'s rules, from the spec's keywords: an enum's members, a pattern's
 * matches or any text within the lengths, any integer or double within the bounds or at them, a boolean.
 */
function validText(field: SpecField): fc.Arbitrary<string> {
  const { schema, kind } = field;
  if (schema.enum !== undefined) return fc.constantFrom(...(schema.enum as unknown[]).map((m) => JSON.stringify(m)));
  if (kind === 'boolean') return fc.constantFrom('true', 'false');
  if (kind === 'int32' || kind === 'int64') {
    const [low, high] = integerRange(field);
    const edges = [low, high, ...(low <= 0n && high >= 0n ? [0n] : [])];
    return fc.oneof(fc.bigInt({ min: low, max: high }), fc.constantFrom(...edges)).map(String);
  }
  if (kind === 'number') {
    const { minimum: min, maximum: max, exclusiveMinimum: above, exclusiveMaximum: below } = schema;
    const low: number = Math.max(min ?? -Number.MAX_VALUE, above === undefined ? -Infinity : towards(above, Infinity));
    const high: number = Math.min(max ?? Number.MAX_VALUE, below === undefined ? Infinity : towards(below, -Infinity));
    const doubles = fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
    return fc.oneof(doubles, fc.constantFrom(low, high)).map((x) => JSON.stringify(x));
  }
  const length = (value: string) => [...value].length;
  const fits = (value: string) =>
    length(value) >= (schema.minLength ?? 0) && length(value) <= (schema.maxLength ?? Infinity);
  const min: number = schema.minLength ?? 0;
  const texts =
    schema.pattern === undefined
      ? fc.string({ unit: anyUnit, minLength: min, maxLength: Math.min(schema.maxLength ?? min + 16, min + 40) })
      : fc.stringMatching(new RegExp(schema.pattern, 'u'), { maxLength: 2 * (schema.maxLength ?? min + 16) });
  const examples = ((schema.examples ?? []) as unknown[]).filter((x): x is string => typeof x === 'string');
  const drawn = texts.filter(fits);
  return (examples.length > 0 ? fc.oneof(drawn, fc.constantFrom(...examples)) : drawn).map((x) => JSON.stringify(x));
}

/** A change to a body: one field's value replaced by any text near its rules (of any JSON type), or dropped. */
const mutation = fc.oneof(
  ...SPEC_FIELDS.map((field, i) => fc.tuple(fc.constant(i), fc.option(valueText(field), { nil: undefined, freq: 10 }))),
);

/**
 * Bodies near a NewPlant, from the spec: a valid one (every required field, each optional one now and
 * then, all within their rules) to which, three times in four, one to three changes are made (a field
 * given any text near its rules or of any JSON type, or dropped), so that every field is now and then the
 * first at fault, however many there are; unknown keys, `__proto__` and `constructor` among the members,
 * in any order. Now and then a body that is no object.
 */
export const newPlantBody: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .tuple(
        fc.tuple(
          ...SPEC_FIELDS.map((field) =>
            field.required ? validText(field) : fc.option(validText(field), { nil: undefined, freq: 3 }),
          ),
        ),
        fc.oneof(
          { weight: 1, arbitrary: fc.constant([]) },
          { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
        ),
        fc.array(fc.tuple(extraKey, fc.oneof(anyJson, pollution)), { maxLength: 3 }),
        fc.nat(),
      )
      .map(([valid, changes, extras, seed]) => {
        const values: (string | undefined)[] = [...valid];
        for (const [i, text] of changes) values[i] = text;
        const members = new Map<string, string>();
        SPEC_FIELDS.forEach((field, i) => {
          if (values[i] !== undefined) members.set(field.name, values[i]);
        });
        for (const [key, text] of extras) members.set(key, text);
        const entries = [...members];
        // Any order: a rotation and a swap, enough to move every member to the front and the back.
        const turned = entries.map((_, i) => entries[(i + seed) % entries.length]!);
        if (turned.length > 1 && seed % 3 === 0) turned.push(turned.shift()!);
        return { text: `{${turned.map(([k, t]) => `${JSON.stringify(k)}:${t}`).join(',')}}`, members };
      }),
  },
  { weight: 1, arbitrary: anyJson.map((text) => ({ text, members: new Map<string, string>() })) },
);

/**
 * Counts of what the bodies reached, by verdict and by each field's first fault, so a test can assert
 * that its generator reached both verdicts and every field's every way of failing.
 */
export class Reach {
  readonly #counts = new Map<string, number>();

  /** Counts `verdict` and the body's extra keys. */
  note(body: Body, verdict: Verdict): void {
    const count = (key: string) => this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    count(verdict.accepted ? 'accepted' : 'refused');
    if (!verdict.accepted) count(verdict.field === undefined ? verdict.key : `${verdict.field} ${verdict.label}`);
    else
      for (const field of SPEC_FIELDS)
        count(`${field.name} ${Object.hasOwn(verdict.plant, field.name) ? 'kept' : 'left out'}`);
    if (body.members.has('__proto__')) count('__proto__');
    if ([...body.members.keys()].some((key) => !names.has(key))) count('unknown keys');
  }

  /** Every way a field can fail, by the spec's keywords: what {@link expectReached} asks for. */
  static ways(field: SpecField): string[] {
    const { schema, kind } = field;
    const ways: Label[] = ['type'];
    if (field.required) ways.push('absent');
    if (schema.enum !== undefined) ways.push('enum');
    else if (kind === 'string') {
      if ((schema.minLength ?? 0) > 0) ways.push('short');
      if (schema.maxLength !== undefined) ways.push('long');
      if (schema.pattern !== undefined) ways.push('pattern');
    } else if (kind === 'int32' || kind === 'int64') {
      ways.push('below', 'above');
    } else if (kind === 'number') {
      if (schema.minimum !== undefined || schema.exclusiveMinimum !== undefined) ways.push('below');
      if (schema.maximum !== undefined || schema.exclusiveMaximum !== undefined) ways.push('above');
    }
    return [
      ...ways.map((way) => `${field.name} ${way}`),
      `${field.name} kept`,
      ...(field.required ? [] : [`${field.name} left out`]),
    ];
  }

  /** The counts, for a test's report. */
  get counts(): Readonly<Record<string, number>> {
    return Object.fromEntries([...this.#counts].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Asserts that both verdicts, every field's every way of failing, and the odd keys were each reached `minimum` times. */
  expectReached(minimum: number): void {
    const wanted = [
      'accepted',
      'refused',
      'notObject',
      '__proto__',
      'unknown keys',
      ...SPEC_FIELDS.flatMap(Reach.ways),
    ];
    const short = wanted.filter((key) => (this.#counts.get(key) ?? 0) < minimum);
    expect(short, `reached fewer than ${minimum} times; counts: ${JSON.stringify(this.counts)}`).toEqual([]);
  }
}
