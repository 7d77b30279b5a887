// The generator of the plant's shape (scripts/plant-shape.mjs): what it reads from Plant and NewPlant,
// the messages it makes of each rule, and every construct it refuses, by name, instead of dropping a
// rule silently. The code it writes is exercised by the packages' own tests and, with fields added to
// a copy of the spec, by test/postgres/spec-evolution.test.ts.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { conflictMessage, plantMessages, readPlantShape } from '../../scripts/plant-shape.mjs';

const source = readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8');

/**
 * The spec with `schema` as `Plant.properties.extra`, or with `edit` applied to its schemas, made from
 * openapi.yaml as first written (Plant's name and tag, which a grown spec keeps first, then NewPlant's
 * id), so that what these tests expect holds whatever fields the spec has grown since.
 */
function specWith(edit: (schemas: Record<string, any>) => void = () => {}): unknown {
  const spec = yaml.load(source) as { components: { schemas: Record<string, any> } };
  const plant = spec.components.schemas.Plant;
  plant.properties = { name: plant.properties.name, tag: plant.properties.tag };
  plant.required = ['name'];
  edit(spec.components.schemas);
  return spec;
}
const withField = (schema: unknown) =>
  specWith((schemas) => {
    schemas.Plant.properties.extra = schema;
  });

describe('the plant shape generator', () => {
  it("reads the key first, then Plant's fields, with their kinds and what the service answers", () => {
    const fields = readPlantShape(specWith());
    expect(fields.map((f: any) => [f.name, f.kind, f.required, f.answered])).toEqual([
      ['id', 'int64', true, false],
      ['name', 'string', true, true],
      ['tag', 'string', false, true],
    ]);
  });

  it('words each rule into its field message, optional fields "when present"', () => {
    const cases: [unknown, string][] = [
      [{ type: 'string', minLength: 1, maxLength: 40 }, 'extra must be a string of 1 to 40 characters when present'],
      [{ type: 'string', minLength: 1 }, 'extra must be a string of at least 1 character when present'],
      [
        { type: 'string', maxLength: 3, pattern: '^a' },
        'extra must be a string of at most 3 characters matching ^a when present',
      ],
      [{ type: 'string', enum: ['a', 'b'] }, 'extra must be one of "a", "b" when present'],
      [
        { type: 'integer', format: 'int32' },
        'extra must be an integer between -2147483648 and 2147483647 when present',
      ],
      [
        { type: 'integer', format: 'int32', exclusiveMinimum: 0, maximum: 9 },
        'extra must be an integer between 1 and 9 when present',
      ],
      [
        { type: 'integer', format: 'int64', minimum: 0 },
        'extra must be an integer between 0 and 9223372036854775807 when present',
      ],
      [{ type: 'number' }, 'extra must be a number when present'],
      [
        { type: 'number', minimum: 0, exclusiveMaximum: 1.5 },
        'extra must be a number at least 0 and less than 1.5 when present',
      ],
      [{ type: 'boolean' }, 'extra must be true or false when present'],
    ];
    for (const [schema, message] of cases) {
      const spec = withField(schema);
      // An int64 in Plant is refused (see below): the int64 case goes to NewPlant's own fields.
      const shape =
        (schema as { format?: string }).format === 'int64'
          ? specWith((schemas) => {
              schemas.NewPlant.allOf[1].properties.extra = schema;
            })
          : spec;
      expect(plantMessages(readPlantShape(shape)).extraInvalid, JSON.stringify(schema)).toBe(message);
    }
  });

  it('names every other field in the 40003 message', () => {
    expect(conflictMessage(readPlantShape(specWith()))).toBe('id is stored already with a different name or tag');
    expect(conflictMessage(readPlantShape(withField({ type: 'boolean' })))).toBe(
      'id is stored already with a different name, tag or extra',
    );
  });

  it('refuses, naming the place, every construct it does not support', () => {
    const cases: [unknown, RegExp][] = [
      [withField({ type: 'object', properties: {} }), /Plant\.extra: type "object" is not supported/],
      [withField({ type: 'array', items: { type: 'string' } }), /Plant\.extra: type "array" is not supported/],
      [withField({ type: ['string', 'null'] }), /Plant\.extra: type \["string","null"\] is not supported/],
      [withField({ type: 'integer' }), /Plant\.extra: an integer needs format int32 or int64/],
      [
        withField({ type: 'string', format: 'email' }),
        /Plant\.extra: the keyword format is not supported on a string field/,
      ],
      [withField({ type: 'string', default: 'x' }), /Plant\.extra: the keyword default is not supported/],
      [withField({ type: 'string', nullable: true }), /Plant\.extra: the keyword nullable is not supported/],
      [withField({ type: 'string', pattern: '(' }), /Plant\.extra: pattern is not a valid regular expression/],
      [withField({ type: 'string', minLength: -1 }), /Plant\.extra: minLength must be a whole number/],
      [withField({ type: 'string', enum: [] }), /Plant\.extra: enum must be a non-empty list/],
      [withField({ type: 'string', enum: [1] }), /Plant\.extra: enum value 1 does not fit/],
      [withField({ type: 'number', format: 'decimal' }), /Plant\.extra: a number's format must be double or float/],
      [
        withField({ type: 'integer', format: 'int32', minimum: 5, maximum: 4 }),
        /Plant\.extra: its bounds leave no integer/,
      ],
      [
        withField({ $ref: '#/components/schemas/Error' }),
        /Plant\.extra: composed and referenced field schemas are not supported/,
      ],
      [withField({ type: 'integer', format: 'int64' }), /Plant\.extra: an int64 field the service answers/],
      [
        specWith((schemas) => {
          schemas.NewPlant.allOf[1].properties.extra = { type: 'integer', format: 'int64', maximum: 2 ** 53 + 1 };
        }),
        /NewPlant\.extra: maximum 9007199254740992 is beyond 2\^53/,
      ],
      [
        specWith((schemas) => {
          schemas.Plant.additionalProperties = false;
        }),
        /components\.schemas\.Plant: the keyword additionalProperties is not supported/,
      ],
      [
        specWith((schemas) => {
          schemas.Plant.required.push('ghost');
        }),
        /components\.schemas\.Plant: required names ghost, which has no property/,
      ],
      [
        specWith((schemas) => {
          schemas.Plant.properties.id = { type: 'string' };
        }),
        /NewPlant\.id: the field is defined twice/,
      ],
      [
        specWith((schemas) => {
          schemas.NewPlant.allOf[1].properties.id = { type: 'integer', format: 'int32' };
        }),
        /NewPlant\.id: the key `id` must be a required int64 field/,
      ],
      [
        specWith((schemas) => {
          schemas.NewPlant = { type: 'object', properties: {} };
        }),
        /components\.schemas\.NewPlant: must be `allOf/,
      ],
      [
        specWith((schemas) => {
          schemas.NewPlant.allOf.shift();
        }),
        /components\.schemas\.NewPlant: must include Plant/,
      ],
    ];
    for (const [spec, message] of cases) expect(() => readPlantShape(spec), String(message)).toThrow(message);
  });
});
