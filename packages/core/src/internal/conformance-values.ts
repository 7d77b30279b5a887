// The values the conformance suite of @plant-store/core/testing inserts: the edges where stores go
// wrong, and fast-check's arbitrary plants. Imported by the testing entry only (fast-check is its peer).
import fc from 'fast-check';
import type { StoredPlant } from '../store.js';
import { INT64_MAX, INT64_MIN } from './int64.js';

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
/** Strings a store must keep exactly: NUL, lone surrogates of both halves, astral, escapes, SQL. */
export const EDGE_STRINGS: readonly string[] = [
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
  '\u2028\u2029',
  'x'.repeat(70_000),
];

/** Any UTF-16 text: every code unit, lone surrogates included, plus the astral and NUL edges. */
const anyString = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.constantFrom('\u0000', '\uD800', '\uDFFF', '🌱', '\u{10FFFF}'),
  ),
  maxLength: 24,
});
export const anyPlant = (ids: fc.Arbitrary<bigint>): fc.Arbitrary<StoredPlant> =>
  fc.record({ id: ids, name: anyString, tag: fc.option(anyString, { nil: undefined }) }).map(plantOf);

/** `plant` with only the fields a store keeps, a missing or undefined tag left out. */
export function plantOf(plant: {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string | undefined;
}): StoredPlant {
  return plant.tag === undefined
    ? { id: plant.id, name: plant.name }
    : { id: plant.id, name: plant.name, tag: plant.tag };
}
