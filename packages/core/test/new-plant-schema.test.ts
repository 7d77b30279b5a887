// Proves the core's NewPlant check (readNewPlant, what the server answers 40002 with) equal to
// openapi.yaml's schema: bodies drawn from the spec's own NewPlant (test/support/new-plant-bodies.ts:
// every field's keys, types, bounds, lengths, patterns and enums read from the document, with unknown
// keys and __proto__) go through Ajv and the core, which must accept the same ones, store what the spec
// says, and refuse the others naming the first field at fault, as the spec's order has it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Body,
  bodyOf,
  newPlantBody,
  Reach,
  SPEC_FIELDS,
  specVerdict,
} from '../../../test/support/new-plant-bodies.js';
import { readNewPlant } from '../src/generated/plant-codec.js';
import { PLANT_MESSAGES } from '../src/generated/plant-shape.js';
import { topLevelMemberText } from '../src/internal/raw-member.js';

/** Asserts that the core judges `body` as the spec does; returns the spec's verdict. */
function expectCoreAgrees(body: Body) {
  const verdict = specVerdict(body);
  const core = readNewPlant(JSON.parse(body.text), body.text);
  if (verdict.accepted) expect(core, body.text).toStrictEqual(verdict.plant);
  else expect(core, body.text).toBe(PLANT_MESSAGES[verdict.key as keyof typeof PLANT_MESSAGES]);
  return verdict;
}

describe('NewPlant validation against openapi.yaml', () => {
  it('judges every body drawn from the spec as Ajv does: the plant the spec says, or the first field at fault', () => {
    const reach = new Reach();
    fc.assert(
      fc.property(newPlantBody, (body) => {
        reach.note(body, expectCoreAgrees(body));
      }),
      // Enough runs that each field, however many, is now and then the first at fault in each of its ways.
      { numRuns: 600 * SPEC_FIELDS.length },
    );
    // Both verdicts, and each field's every way of failing as the first fault, or the agreement means little.
    reach.expectReached(10);
  });

  it('judges any JSON value as Ajv does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expectCoreAgrees(bodyOf(JSON.stringify(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('judges hand-picked edge cases as Ajv does', () => {
    for (const text of [
      '{"id":1,"name":"a"}',
      '{"id":1,"name":""}',
      '{"id":1,"name":"a","tag":""}',
      '{"id":1,"name":"a","tag":null}',
      '{"id":-9223372036854775808,"name":"a"}',
      '{"id":9223372036854775807,"name":"a"}',
      '{"id":9223372036854775808,"name":"a"}',
      '{"id":1.5,"name":"a"}',
      '{"id":1.0,"name":"a"}',
      '{"id":1.00000000000000000001,"name":"a"}',
      '{"id":"1","name":"a"}',
      '{"name":"a"}',
      '{"id":1}',
      '[]',
      '"x"',
      '{"__proto__":{"id":1,"name":"a"}}',
    ]) {
      expectCoreAgrees(bodyOf(text));
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
