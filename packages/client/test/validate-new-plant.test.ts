import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyPlant } from '../../core/src/internal/conformance-values.js';
import { PLANT_FIELDS, PLANT_MESSAGES } from '../src/generated/plant-shape.js';
import {
  newPlantFormSchema,
  newPlantSchema,
  validateNewPlant,
  validateNewPlantForm,
  type NewPlantFormValues,
  type NewPlantIssue,
} from '../src/validate.js';

const ID_RANGE = 'id must be an integer between -9223372036854775808 and 9223372036854775807';
type Path = NewPlantIssue['path'];
const issue = (message: string, path: Path) => ({ code: 40002, message, path });

describe('validateNewPlant', () => {
  it('gives the plant with only the spec fields for a valid value', () => {
    expect(validateNewPlant({ id: 1, name: 'Fern', tag: 'shade', extra: true })).toStrictEqual({
      value: { id: 1, name: 'Fern', tag: 'shade' },
    });
    expect(validateNewPlant({ id: 9007199254740993n, name: '' })).toStrictEqual({
      value: { id: 9007199254740993n, name: '' },
    });
  });

  it('accepts the int64 edges as bigints and refuses one past them with the service message', () => {
    expect(validateNewPlant({ id: -(2n ** 63n), name: 'a' }).issues).toBeUndefined();
    expect(validateNewPlant({ id: 2n ** 63n - 1n, name: 'a' }).issues).toBeUndefined();
    expect(validateNewPlant({ id: 2n ** 63n, name: 'a' }).issues).toEqual([issue(ID_RANGE, ['id'])]);
    expect(validateNewPlant({ id: -(2n ** 63n) - 1n, name: 'a' }).issues).toEqual([issue(ID_RANGE, ['id'])]);
  });

  it('reports every field at fault, in the order the service checks them', () => {
    // Each field of the spec given a value of the wrong type: a number for a string, a string for the rest.
    const wrong = Object.fromEntries(PLANT_FIELDS.map(({ name, kind }) => [name, kind === 'string' ? 5 : 'x']));
    expect(validateNewPlant(wrong).issues).toEqual(
      PLANT_FIELDS.map(({ name }) =>
        issue(PLANT_MESSAGES[`${name}Invalid` as keyof typeof PLANT_MESSAGES], [name] as Path),
      ),
    );
    expect(validateNewPlant({}).issues).toEqual(
      PLANT_FIELDS.filter(({ required }) => required).map(({ name }) =>
        issue(PLANT_MESSAGES[`${name}Required` as keyof typeof PLANT_MESSAGES], [name] as Path),
      ),
    );
  });

  it('refuses what is not an object with the service message and an empty path', () => {
    for (const value of [null, [], 'plant', 42, undefined]) {
      expect(validateNewPlant(value).issues).toEqual([issue('body must be a JSON object', [])]);
    }
  });

  it('refuses a string, a null or a fractional id with the id message', () => {
    for (const id of ['1', null, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300]) {
      expect(validateNewPlant({ id, name: 'a' }).issues, String(id)).toEqual([issue(ID_RANGE, ['id'])]);
    }
  });

  it('asks for a bigint for a whole number beyond 2^53-1, which may have been rounded already', () => {
    const [only] = validateNewPlant({ id: 2 ** 53, name: 'a' }).issues ?? [];
    expect(only).toMatchObject({ code: 40002, path: ['id'] });
    expect(only?.message).toMatch(/must be a bigint/);
    expect(validateNewPlant({ id: -(2 ** 63), name: 'a' }).issues?.[0]?.message).toMatch(/must be a bigint/);
  });

  it('reads an undefined field as absent, as createPlant does', () => {
    expect(validateNewPlant({ id: 1, name: 'a', tag: undefined })).toStrictEqual({ value: { id: 1, name: 'a' } });
  });
});

describe('validateNewPlantForm', () => {
  it('reads the id text exactly: a number up to 2^53-1, a bigint beyond', () => {
    expect(validateNewPlantForm({ id: '9007199254740991', name: 'a' }).value?.id).toBe(9007199254740991);
    expect(validateNewPlantForm({ id: '9007199254740993', name: 'a' }).value?.id).toBe(9007199254740993n);
    expect(validateNewPlantForm({ id: '-9007199254740992', name: 'a' }).value?.id).toBe(-9007199254740992n);
    expect(validateNewPlantForm({ id: ' 9223372036854775807 ', name: 'a' }).value?.id).toBe(9223372036854775807n);
    expect(validateNewPlantForm({ id: '-0', name: 'a' }).value?.id).toBe(0);
  });

  it('refuses id text that is not a decimal integer in range with the service message', () => {
    for (const id of ['1.5', '1e3', 'abc', '0x10', '+1', '9223372036854775808', '1'.repeat(400)]) {
      expect(validateNewPlantForm({ id, name: 'a' }).issues, id).toEqual([issue(ID_RANGE, ['id'])]);
    }
  });

  it('says the id is required for an empty field, and reads an empty tag as no tag', () => {
    expect(validateNewPlantForm({ id: '  ', name: 'Fern', tag: 'x' }).issues).toEqual([
      issue('id is required', ['id']),
    ]);
    expect(validateNewPlantForm({ id: '7', name: 'Fern', tag: '' })).toStrictEqual({ value: { id: 7, name: 'Fern' } });
  });

  it('reads back any plant written as form text: each field from its text, an empty optional string as absent', () => {
    fc.assert(
      fc.property(anyPlant(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), (plant) => {
        const values: Record<string, unknown> = {};
        const expected: Record<string, unknown> = {};
        for (const { name, kind, required } of PLANT_FIELDS) {
          const value = (plant as unknown as Record<string, unknown>)[name];
          if (value === undefined) continue;
          values[name] = typeof value === 'boolean' ? value : String(value);
          if (kind === 'string' && value === '' && !required) continue;
          expected[name] = typeof value === 'bigint' && Number.isSafeInteger(Number(value)) ? Number(value) : value;
        }
        expect(validateNewPlantForm(values as unknown as NewPlantFormValues)).toStrictEqual({ value: expected });
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the name exactly as typed', () => {
    expect(validateNewPlantForm({ id: '7', name: '  Fern ' }).value?.name).toBe('  Fern ');
  });
});

describe('Standard Schema v1', () => {
  it('exposes the validators as version 1 schemas of the vendor plant-store', async () => {
    for (const schema of [newPlantSchema, newPlantFormSchema]) {
      expect(schema['~standard'].version).toBe(1);
      expect(schema['~standard'].vendor).toBe('plant-store');
    }
    expect(await newPlantSchema['~standard'].validate({ id: 1n, name: 'Fern' })).toStrictEqual({
      value: { id: 1n, name: 'Fern' },
    });
    expect(await newPlantFormSchema['~standard'].validate({ id: '18446744073709551616', name: 'Fern' })).toEqual({
      issues: [issue(ID_RANGE, ['id'])],
    });
  });
});
