// The values the conformance suite of @plant-store/core/testing inserts, all made from the plant's
// shape in the spec (PLANT_FIELDS), so a field added to openapi.yaml is checked in every store at the
// next `npm run generate`: per field, fast-check arbitraries within its rules, the edge values where
// stores go wrong, another value for a conflict, and values no request could carry. Imported by the
// testing entry only (fast-check is its peer).
import fc from 'fast-check';
import { PLANT_FIELDS, type PlantField } from '../generated/plant-shape.js';
import type { StoredPlant } from '../store.js';
import { INT64_MAX, INT64_MIN } from './int64.js';

/** A plant as the suite builds one: the key and any fields, each by its name. */
export type Plant = Readonly<Record<string, unknown>>;

/** The key (`id`): the field every store keys plants on. */
export const KEY: PlantField = PLANT_FIELDS.find((field) => field.name === 'id')!;
/** Every other field, in the spec's order. */
export const VALUE_FIELDS: readonly PlantField[] = PLANT_FIELDS.filter((field) => field !== KEY);
/** The fields a plant may leave out. */
export const OPTIONAL_FIELDS: readonly PlantField[] = VALUE_FIELDS.filter((field) => !field.required);

/** The `n`th id from the key's lowest non-negative one: 0, 1, 2… for the spec's int64 key. */
export function keyId(n: number): bigint {
  const [low] = intBounds(KEY);
  return (low > 0n ? low : 0n) + BigInt(n);
}

/** Ids from `from` to `to` (for the spec's int64 key), moved into the key's range, so that draws collide. */
export function fewIds(from: bigint, to: bigint): fc.Arbitrary<bigint> {
  const [low, high] = intBounds(KEY);
  const shift = from < low ? low - from : to > high ? high - to : 0n;
  return fc.bigInt({ min: from + shift < low ? low : from + shift, max: to + shift > high ? high : to + shift });
}

/** Ids where a store that passes them through a JS number, an int32 or a float would go wrong. */
export const EDGE_IDS: readonly bigint[] = [
  INT64_MIN,
  INT64_MIN + 1n,
  -(2n ** 53n) - 1n,
  -(2n ** 31n) - 1n,
  -1n,
  0n,
  1n,
  2n ** 31n,
  2n ** 32n,
  2n ** 53n,
  2n ** 53n + 1n,
  INT64_MAX - 1n,
  INT64_MAX,
];
/** Strings a store must keep exactly: NUL, lone surrogates of both halves, astral, escapes, SQL, framing. */
const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDC00\uD800y',
  '🌱',
  '\u{10FFFF}',
  'e\u0301',
  '\uFEFF',
  '\r\n\t',
  '"\\\'',
  "'); DROP TABLE plants; --",
  // What a store's own framing may use: a length and colon, a separator, a mark for "absent".
  '\u00003:abc',
  '12:',
  '~',
  ';',
  '\u2028\u2029',
  'x'.repeat(70_000),
];
/** Doubles a store must keep exactly: no short decimal, the extremes, the smallest subnormal, beyond 2^53. */
const EDGE_NUMBERS: readonly number[] = [
  0,
  1,
  -1,
  0.1,
  -0.1,
  1 / 3,
  1e300,
  -1e300,
  5e-324,
  -5e-324,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  2 ** 53 + 2,
  -(2 ** 63),
  123456.789,
];

/** A string's length as JSON Schema counts it: in code points, a lone surrogate as one. */
const codePoints = (text: string): number => [...text].length;

/** The next double after `x` towards +Infinity (`up`) or -Infinity. */
function nextDouble(x: number, up: boolean): number {
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] = bits[0]! + (x > 0 === up ? 1n : -1n);
  return new Float64Array(bits.buffer)[0]!;
}

/** An integer field's bounds, as the shape gives them (the format's range narrowed by the keywords). */
const intBounds = (field: PlantField): [bigint, bigint] => [BigInt(field.minimum!), BigInt(field.maximum!)];

/** Whether `value` is a value of `field` a plant may hold: its type, and every rule of the spec. */
export function fits(field: PlantField, value: unknown): boolean {
  if (field.enum !== undefined && !field.enum.some((member) => sameValue(toValue(field, member), value))) return false;
  switch (field.kind) {
    case 'string':
      return (
        typeof value === 'string' &&
        codePoints(value) >= (field.minLength ?? 0) &&
        codePoints(value) <= (field.maxLength ?? Number.POSITIVE_INFINITY) &&
        (field.pattern === undefined || new RegExp(field.pattern, 'u').test(value))
      );
    case 'int64': {
      const [low, high] = intBounds(field);
      return typeof value === 'bigint' && value >= low && value <= high;
    }
    case 'int32': {
      const [low, high] = intBounds(field);
      return Number.isInteger(value) && BigInt(value as number) >= low && BigInt(value as number) <= high;
    }
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        !(field.minimum !== undefined && value < Number(field.minimum)) &&
        !(field.maximum !== undefined && value > Number(field.maximum)) &&
        !(field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) &&
        !(field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum)
      );
    default:
      return typeof value === 'boolean';
  }
}

/** A value of the shape's table (an enum member, an example) as a plant holds it: an int64 as a bigint. */
const toValue = (field: PlantField, value: unknown): unknown =>
  field.kind === 'int64' && typeof value === 'number' ? BigInt(value) : value;

/** Equality of two values of a field, as the service compares plants (`===`). */
const sameValue = (a: unknown, b: unknown): boolean => a === b;

/** Any UTF-16 code unit, lone surrogates included, and the NUL and astral edges. */
const anyUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom('\u0000', '\uD800', '\uDFFF', '🌱', '\u{10FFFF}'),
);

/** The ends of a number field's range, for fast-check's double. */
function numberRange(field: PlantField): fc.DoubleConstraints {
  const range: { -readonly [K in keyof fc.DoubleConstraints]: fc.DoubleConstraints[K] } = {
    noNaN: true,
    noDefaultInfinity: true,
  };
  if (field.minimum !== undefined) range.min = Number(field.minimum);
  if (field.exclusiveMinimum !== undefined && !(field.exclusiveMinimum < (range.min ?? -Infinity))) {
    range.min = field.exclusiveMinimum;
    range.minExcluded = true;
  }
  if (field.maximum !== undefined) range.max = Number(field.maximum);
  if (field.exclusiveMaximum !== undefined && !(field.exclusiveMaximum > (range.max ?? Infinity))) {
    range.max = field.exclusiveMaximum;
    range.maxExcluded = true;
  }
  return range;
}

/** Draws of a pattern's matches within the field's lengths, and a fixed sample of them. */
interface PatternMatches {
  readonly arbitrary: fc.Arbitrary<unknown> | undefined;
  readonly sample: readonly string[];
}
const patternCache = new Map<PlantField, PatternMatches>();

/**
 * Matches of a string field's pattern that fit its lengths: fast-check's `stringMatching`, filtered to
 * the lengths when most of its matches fit them (a filter draws again until one does), else only the
 * fitting ones of a fixed sample; none when no sampled match fits.
 */
function patternMatches(field: PlantField): PatternMatches {
  const cached = patternCache.get(field);
  if (cached !== undefined) return cached;
  const matches = fc.stringMatching(new RegExp(field.pattern!, 'u'), { maxLength: 2 * (field.maxLength ?? 24) });
  const sample = [...new Set(fc.sample(matches, { numRuns: 200, seed: 1 }).filter((value) => fits(field, value)))];
  const arbitrary =
    sample.length >= 50
      ? matches.filter((value) => fits(field, value))
      : sample.length > 0
        ? fc.constantFrom(...sample)
        : undefined;
  const found = { arbitrary, sample: sample.slice(0, 8) };
  patternCache.set(field, found);
  return found;
}

/**
 * Any value of `field` within its rules: an enum's members; any UTF-16 text (lone surrogates and NUL
 * included) of a length within the bounds, counted in code points, or what matches the pattern; any
 * integer or double in the bounds; either boolean; and the field's edge values often. The sign of a
 * zero is never drawn: JSON writes -0 as 0 and the service compares with `===`, so no store need keep it.
 */
function valueArbitrary(field: PlantField): fc.Arbitrary<unknown> {
  const edges = fc.constantFrom(...edgeValues(field));
  let any: fc.Arbitrary<unknown> | undefined;
  if (field.enum !== undefined) any = undefined;
  else if (field.kind === 'string' && field.pattern !== undefined) any = patternMatches(field).arbitrary;
  else if (field.kind === 'string') {
    const min = field.minLength ?? 0;
    const text = fc.string({
      unit: anyUnit,
      minLength: min,
      maxLength: Math.min(field.maxLength ?? min + 24, min + 64),
    });
    // Two lone halves drawn side by side make one code point: the rare string that falls short is drawn again.
    any = text.filter((value) => fits(field, value));
  } else if (field.kind === 'int64') {
    const [min, max] = intBounds(field);
    any = fc.bigInt({ min, max });
  } else if (field.kind === 'int32') {
    const [min, max] = intBounds(field);
    any = fc.integer({ min: Number(min), max: Number(max) });
  } else if (field.kind === 'number') {
    any = fc.double(numberRange(field)).map((value) => (value === 0 ? 0 : value));
  } else {
    any = fc.boolean();
  }
  return any === undefined ? edges : fc.oneof({ weight: 4, arbitrary: any }, { weight: 1, arbitrary: edges });
}

/** Strings at a field's length bounds, in code points: plain, astral (two units each), lone surrogates, NUL. */
function lengthEdges(field: PlantField): string[] {
  const lengths = [field.minLength, field.maxLength].filter((n): n is number => n !== undefined);
  return lengths.flatMap((n) => ['x', '🌱', '\uD800', '\u0000', '\uDFFF'].map((unit) => unit.repeat(n)));
}

/**
 * The values of `field` where stores go wrong, every one within the field's rules: an enum's members
 * and the spec's examples first, then the edge strings, strings at the length bounds and a few of a
 * pattern's matches; an integer field's edge ids and bounds; numbers without a short decimal, at the
 * extremes and at every bound (an exclusive one's nearest double inside); both booleans.
 * @throws Error when the field has no such value (a pattern no sampled match of fits): give it examples.
 */
export function edgeValues(field: PlantField): readonly unknown[] {
  const cached = edgeCache.get(field);
  if (cached !== undefined) return cached;
  const candidates: unknown[] = [...(field.enum ?? []), ...(field.examples ?? [])].map((v) => toValue(field, v));
  if (field.kind === 'string') {
    candidates.push(...EDGE_STRINGS, ...lengthEdges(field));
    if (field.pattern !== undefined) candidates.push(...patternMatches(field).sample);
  } else if (field.kind === 'int64' || field.kind === 'int32') {
    const [low, high] = intBounds(field);
    const ints = [...EDGE_IDS, low, low + 1n, high - 1n, high];
    candidates.push(...(field.kind === 'int64' ? ints : ints.map(Number)));
  } else if (field.kind === 'number') {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = field;
    if (minimum !== undefined) candidates.push(Number(minimum), nextDouble(Number(minimum), true));
    if (maximum !== undefined) candidates.push(Number(maximum), nextDouble(Number(maximum), false));
    if (exclusiveMinimum !== undefined) candidates.push(nextDouble(exclusiveMinimum, true));
    if (exclusiveMaximum !== undefined) candidates.push(nextDouble(exclusiveMaximum, false));
    candidates.push(...EDGE_NUMBERS);
  } else {
    candidates.push(false, true);
  }
  const edges = [...new Set(candidates.filter((value) => fits(field, value)))];
  if (edges.length === 0) {
    throw new Error(
      `the conformance suite cannot make a value of ${field.name} within its rules: give it examples in the OpenAPI document`,
    );
  }
  edgeCache.set(field, edges);
  return edges;
}
const edgeCache = new Map<PlantField, readonly unknown[]>();

/** A value of `field` other than `value` (by `===`), or `undefined` when the field has no other. */
export function otherValue(field: PlantField, value: unknown): unknown {
  return edgeValues(field).find((candidate) => !sameValue(candidate, value));
}

/**
 * The plant under `id` with a value for every field, optional ones too: for each, the `index`th of its
 * edge values (wrapping), so that plants of different indexes differ where the fields allow.
 */
export function fullPlant(id: bigint, index = 0): Plant {
  const plant: Record<string, unknown> = { [KEY.name]: id };
  for (const field of VALUE_FIELDS) {
    const values = edgeValues(field);
    plant[field.name] = values[index % values.length];
  }
  return plant;
}

/** `plant` without `field`. */
export function without(plant: Plant, field: PlantField): Plant {
  const { [field.name]: _, ...rest } = plant;
  return rest;
}

/** The plant under `id` with only the required fields, from {@link fullPlant}. */
export function barePlant(id: bigint, index = 0): Plant {
  return OPTIONAL_FIELDS.reduce(without, fullPlant(id, index));
}

/** Any plant under an id of `ids`: every field within its rules, each optional one absent now and then. */
export const anyPlant = (ids: fc.Arbitrary<bigint>): fc.Arbitrary<StoredPlant> =>
  fc
    .record(
      Object.fromEntries([
        [KEY.name, ids],
        ...VALUE_FIELDS.map((field) => {
          const value = valueArbitrary(field);
          return [field.name, field.required ? value : fc.option(value, { nil: undefined, freq: 4 })];
        }),
      ]),
    )
    .map(plantOf);

/** `plant` with only the fields a store keeps: the shape's own, an undefined one left out. */
export function plantOf(plant: Plant | StoredPlant): StoredPlant {
  const values = plant as Plant;
  const kept: Record<string, unknown> = {};
  for (const field of PLANT_FIELDS) if (values[field.name] !== undefined) kept[field.name] = values[field.name];
  return kept as unknown as StoredPlant;
}

/** A value no request could give a field, and why. */
export interface BadValue {
  readonly value: unknown;
  readonly why: string;
}

/** Values of the wrong type for a field of `kind` (`undefined` is absence, checked apart). */
const WRONG_TYPES: Readonly<Record<PlantField['kind'], readonly unknown[]>> = {
  string: [5, null, true, ['x'], { toString: () => 'x' }],
  int64: ['5', 1.5, 2 ** 53, null, true, Number.NaN],
  int32: ['5', 1.5, 1n, null, true, Number.POSITIVE_INFINITY],
  number: ['1', 1n, null, true, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
  boolean: ['true', 0, 1, null],
};

/**
 * Values a plant cannot hold for `field`, derived from its kind and rules: the wrong type, absence when
 * it is required, just outside each bound (a length, an integer's range, a number's keywords), a
 * miss of its pattern and of its enum. Every one fails {@link fits}.
 */
export function badValues(field: PlantField): readonly BadValue[] {
  const bad: BadValue[] = WRONG_TYPES[field.kind].map((value) => ({ value, why: 'the wrong type' }));
  if (field.required) bad.push({ value: undefined, why: 'absent' });
  const first = edgeValues(field)[0];
  if (field.kind === 'string') {
    const { minLength, maxLength, pattern } = field;
    if (minLength !== undefined && minLength > 0) bad.push({ value: 'x'.repeat(minLength - 1), why: 'too short' });
    if (maxLength !== undefined) {
      for (const unit of ['x', '🌱', '\uD800'])
        bad.push({ value: unit.repeat(maxLength + 1), why: 'too long, in code points' });
    }
    if (pattern !== undefined) {
      const regex = new RegExp(pattern, 'u');
      const misses = [...EDGE_STRINGS, ...lengthEdges(field), 'x', '!', '0', 'A']
        .filter((text) => !regex.test(text))
        .filter((text) => fits({ ...field, pattern: undefined, enum: undefined }, text));
      for (const value of misses.slice(0, 3)) bad.push({ value, why: 'a miss of its pattern' });
    }
  } else if (field.kind === 'int64' || field.kind === 'int32') {
    const [low, high] = intBounds(field);
    const as = (n: bigint): unknown => (field.kind === 'int64' ? n : Number(n));
    bad.push({ value: as(low - 1n), why: 'below its range' }, { value: as(high + 1n), why: 'above its range' });
    if (field.kind === 'int64') bad.push({ value: 2n ** 64n, why: 'beyond int64, 0 if wrapped' });
  } else if (field.kind === 'number') {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = field;
    if (minimum !== undefined) bad.push({ value: nextDouble(Number(minimum), false), why: 'below its minimum' });
    if (maximum !== undefined) bad.push({ value: nextDouble(Number(maximum), true), why: 'above its maximum' });
    if (exclusiveMinimum !== undefined) bad.push({ value: exclusiveMinimum, why: 'at its exclusive minimum' });
    if (exclusiveMaximum !== undefined) bad.push({ value: exclusiveMaximum, why: 'at its exclusive maximum' });
  }
  if (field.enum !== undefined && first !== undefined) {
    const near =
      typeof first === 'string'
        ? [`${first}x`, first.slice(0, -1), first.toUpperCase(), ` ${first}`]
        : typeof first === 'bigint'
          ? [first + 1n, first - 1n]
          : [(first as number) + 1, (first as number) - 1, (first as number) + 0.5];
    for (const value of near) {
      if (fits({ ...field, enum: undefined }, value)) bad.push({ value, why: 'not one of its enum' });
    }
  }
  return bad.filter(({ value }) => !fits(field, value));
}
