// fast-check generators of request bodies near a NewPlant, with the raw text of their ids: shared by the
// core's property tests and the proof that the client's validator judges bodies as the core does.
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from './spec-oracle.js';

const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX });
const boundaryIds = fc.constantFrom(
  INT64_MIN,
  INT64_MAX,
  INT64_MIN + 1n,
  INT64_MAX - 1n,
  0n,
  1n,
  -1n,
  2n ** 53n,
  2n ** 53n + 1n,
  -(2n ** 53n) - 1n,
  2n ** 62n + 1n,
  9007199254740993n,
);
export const anyInt64 = fc.oneof(int64, boundaryIds);

/** Raw JSON number texts for `id`: in range, out of range, fractions, exponents, `-0`. */
export const idNumberText = fc.oneof(
  anyInt64.map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom(
    '9223372036854775808',
    '-9223372036854775809',
    '18446744073709551616',
    '1.00000000000000000001',
    '9223372036854775807.0',
    '9223372036854775807.5',
    '-0',
    '-0.0',
    '0e0',
    '1e2',
    '1E+2',
    '100e-2',
    '1.5',
    '1e400',
    '-1e400',
    '1e-400',
    '1e19',
    '9.223372036854775807e18',
    '9.223372036854775808e18',
    '123456789012345678901234567890',
    '0.1e1',
    '12e-1',
  ),
  fc.tuple(anyInt64, fc.stringMatching(/^[0-9]{1,22}$/)).map(([i, f]) => `${i}.${f}`),
  fc
    .tuple(
      fc.bigInt({ min: -999999n, max: 999999n }),
      fc.integer({ min: -25, max: 25 }),
      fc.constantFrom('e', 'E', 'e+', 'E-'),
    )
    .map(([m, e, s]) => (s.length === 2 ? `${m}${s}${Math.abs(e)}` : `${m}${s}${e}`)),
);

/** Strings of every kind the core must keep exactly: empty, unicode, escapes, lone surrogates. */
export const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\u0000', '\ud800', '"\\/\b\f\n\r\t', '</script>', '\u001b[31m', '\u2028\u2029', '__proto__'),
);

const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

/** One body field as [key, raw JSON text], or nothing. */
type Field = readonly [string, string] | null;
const optionalField = (key: string, raw: fc.Arbitrary<string>): fc.Arbitrary<Field> =>
  fc.option(
    raw.map((r) => [key, r] as const),
    { freq: 6, nil: null },
  );

/** Bodies near a NewPlant: each field present or not, well or badly typed, with raw id text. */
export const nearNewPlant = fc
  .record({
    id: optionalField(
      'id',
      fc.oneof(
        { weight: 4, arbitrary: idNumberText },
        { weight: 1, arbitrary: fc.oneof(text, notAString).map((v) => JSON.stringify(v)) },
      ),
    ),
    name: optionalField(
      'name',
      fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: notAString }).map((v) => JSON.stringify(v)),
    ),
    tag: optionalField(
      'tag',
      fc.oneof({ weight: 3, arbitrary: text }, { weight: 1, arbitrary: notAString }).map((v) => JSON.stringify(v)),
    ),
    extra: fc.dictionary(
      fc.string({ maxLength: 8 }).filter((k) => !['id', 'name', 'tag'].includes(k)),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 3 },
    ),
    order: fc.integer({ min: 0, max: 5 }),
    space: fc.constantFrom('', ' ', '\n\t '),
    // A repeated key, escaped or not: JSON.parse keeps the last, and the id check must read that one.
    duplicate: fc.option(
      fc.tuple(
        fc.constantFrom('id', 'name', 'tag', '\\u0069d'),
        fc.oneof(
          idNumberText,
          text.map((t) => JSON.stringify(t)),
        ),
        fc.boolean(),
      ),
      { freq: 5, nil: null },
    ),
  })
  .map(({ id, name, tag, extra, order, space, duplicate }) => {
    const fields = [id, name, tag].filter((f): f is readonly [string, string] => f !== null);
    for (let i = 0; i < order % (fields.length || 1); i++) fields.push(fields.shift()!);
    if (duplicate) {
      const [key, raw, first] = duplicate;
      const field = [key, raw] as const;
      if (first) fields.unshift(field);
      else fields.push(field);
      id = null; // the oracle finds the raw id text itself
    }
    const entries = [...fields, ...Object.entries(extra).map(([k, v]) => [k, JSON.stringify(v)] as const)];
    const key = (k: string) => (k.startsWith('\\u') ? `"${k}"` : JSON.stringify(k));
    const bodyText = `${space}{${entries.map(([k, r]) => `${key(k)}${space}:${space}${r}`).join(`,${space}`)}}${space}`;
    return { bodyText, rawId: id?.[1] };
  });
