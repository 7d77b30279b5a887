// Proves the hand-written NewPlant validation equal to openapi.yaml's schema: Ajv compiles the spec's
// components.schemas, and many generated bodies go through both.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readNewPlant } from '../src/generated/plant-codec.js';
import { topLevelMemberText } from '../src/internal/raw-member.js';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };
const spec = yaml.load(readFileSync(new URL('../../../openapi.yaml', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, unknown> };
};

function specValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: false });
  ajv.addKeyword('x-error-codes');
  // int64: JS doubles can only hold the range approximately (2^63-1 reads as 2^63), so the format checks
  // it exactly against 2^63 itself; int32 likewise.
  ajv.addFormat('int64', { type: 'number', validate: (x: number) => x >= -(2 ** 63) && x < 2 ** 63 });
  ajv.addFormat('int32', { type: 'number', validate: (x: number) => x >= -(2 ** 31) && x < 2 ** 31 });
  // The spec's refs point into components.schemas; served here as $defs of one document.
  const defs = JSON.parse(JSON.stringify(spec.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'));
  return ajv.compile({ $defs: defs, $ref: '#/$defs/NewPlant' });
}

const schemaAccepts = specValidator();
const coreAccepts = (text: string) => typeof readNewPlant(JSON.parse(text), text) !== 'string';

/** Integers whose JSON text is their exact value, so a JSON.parse-based oracle sees what the core sees. */
const roundTripInteger = fc
  .oneof(
    fc.integer(),
    fc.maxSafeInteger(),
    fc.double({ min: -(2 ** 64), max: 2 ** 64, noNaN: true }).map(Math.trunc),
    fc.constantFrom(2 ** 63, -(2 ** 63), 2 ** 62, -(2 ** 53), 2 ** 53, 0, -0),
  )
  .filter((x) => Number.isFinite(x) && BigInt(JSON.stringify(x)) === BigInt(x));

const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 3, arbitrary: roundTripInteger },
  fc.double({ noDefaultInfinity: true }),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string(), { maxKeys: 2 }),
);

const candidate = fc.record(
  {
    id: fc.oneof({ weight: 4, arbitrary: roundTripInteger }, anyValue),
    name: fc.oneof({ weight: 4, arbitrary: fc.string() }, anyValue),
    tag: fc.oneof({ weight: 4, arbitrary: fc.string() }, anyValue),
    other: anyValue,
    ['__proto__']: anyValue,
    constructor: anyValue,
  },
  { requiredKeys: [] },
);

describe('NewPlant validation against openapi.yaml', () => {
  it('agrees with the spec schema on generated objects', () => {
    const seen = { accepted: 0, rejected: 0, proto: 0 };
    fc.assert(
      fc.property(candidate, (value) => {
        const text = JSON.stringify(value);
        const verdict = schemaAccepts(JSON.parse(text));
        expect(coreAccepts(text), text).toBe(verdict);
        seen[verdict ? 'accepted' : 'rejected']++;
        if (text.includes('"__proto__"')) seen.proto++;
      }),
      { numRuns: 5000 },
    );
    // The generator must reach both verdicts and the prototype-poisoning key, or the agreement means little.
    expect(seen.accepted).toBeGreaterThan(500);
    expect(seen.rejected).toBeGreaterThan(500);
    expect(seen.proto).toBeGreaterThan(500);
  });

  it('agrees with the spec schema on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(coreAccepts(text), text).toBe(schemaAccepts(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with the spec schema on hand-picked edge cases', () => {
    for (const text of [
      '{"id":1,"name":"a"}',
      '{"id":1,"name":""}',
      '{"id":1,"name":"a","tag":""}',
      '{"id":1,"name":"a","tag":null}',
      '{"id":-9223372036854775808,"name":"a"}',
      '{"id":9223372036854775808,"name":"a"}',
      '{"id":1.5,"name":"a"}',
      '{"id":1.0,"name":"a"}',
      '{"id":"1","name":"a"}',
      '{"name":"a"}',
      '{"id":1}',
      '[]',
      '"x"',
      '{"__proto__":{"id":1,"name":"a"}}',
    ]) {
      expect(coreAccepts(text), text).toBe(schemaAccepts(JSON.parse(text)));
    }
  });
});

/** JSON text of `value` with random insignificant whitespace and some key characters escaped. */
function messyJson(value: unknown, rnd: () => number): string {
  const ws = () => [' ', '\n', '\t', '\r', ''][Math.floor(rnd() * 5)]!;
  if (Array.isArray(value)) return ws() + '[' + value.map((v) => messyJson(v, rnd)).join(',') + ']' + ws();
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => {
      const key =
        rnd() < 0.3
          ? '"' + [...k].map((ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')).join('') + '"'
          : JSON.stringify(k);
      return ws() + key + ws() + ':' + messyJson(v, rnd);
    });
    return ws() + '{' + members.join(',') + ws() + '}' + ws();
  }
  return ws() + JSON.stringify(value) + ws();
}

describe('the raw member scanner', () => {
  it('finds the same top-level member JSON.parse does, in messy JSON text', () => {
    const key = fc.constantFrom('id', 'i', 'idd', 'name', '"', '\\', 'x\\"id');
    const body = fc.dictionary(key, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });
    fc.assert(
      fc.property(body, fc.integer(), fc.constantFrom('id', 'x\\"id', '"'), (object, seed, wanted) => {
        let s = seed;
        const rnd = () => {
          s = (s * 1103515245 + 12345) & 0x7fffffff;
          return s / 0x80000000;
        };
        // A duplicate of the wanted key appended by hand: JSON.parse keeps the last one.
        const text = messyJson(object, rnd).replace(/\}\s*$/, (end) =>
          Object.keys(object).length > 0 && rnd() < 0.5 ? `,${JSON.stringify(wanted)}:[1,{"id":2}]` + end : end,
        );
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const raw = topLevelMemberText(text, wanted);
        if (Object.hasOwn(parsed, wanted)) expect(JSON.parse(raw!)).toEqual(parsed[wanted]);
        else expect(raw).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });
});
