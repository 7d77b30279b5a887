import type { StandardSchemaV1 as OfficialStandardSchemaV1 } from '@standard-schema/spec';
import { describe, expectTypeOf, it } from 'vitest';
import type { NewPlant } from '../src/index.js';
import {
  newPlantFormSchema,
  newPlantSchema,
  validateNewPlant,
  validateNewPlantForm,
  type NewPlantFormValues,
  type NewPlantIssue,
} from '../src/validate.js';

describe('validate entry types', () => {
  it('implements the Standard Schema v1 interface of @standard-schema/spec', () => {
    expectTypeOf(newPlantSchema).toExtend<OfficialStandardSchemaV1<NewPlant, NewPlant>>();
    expectTypeOf(newPlantFormSchema).toExtend<OfficialStandardSchemaV1<NewPlantFormValues, NewPlant>>();
    expectTypeOf<OfficialStandardSchemaV1.InferOutput<typeof newPlantFormSchema>>().toEqualTypeOf<NewPlant>();
    expectTypeOf<OfficialStandardSchemaV1.InferInput<typeof newPlantFormSchema>>().toEqualTypeOf<NewPlantFormValues>();
  });

  it('gives the plant or a non-empty list of issues, told apart by `issues`', () => {
    const result = validateNewPlant({ id: 1, name: 'Fern' });
    if (result.issues) {
      expectTypeOf(result.issues[0]).toEqualTypeOf<NewPlantIssue>();
      expectTypeOf(result.issues[0].code).toEqualTypeOf<40002>();
      // The path names one of the spec's NewPlant fields, or none (the body itself).
      expectTypeOf(result.issues[0].path).toEqualTypeOf<readonly [] | readonly [keyof NewPlant]>();
    } else {
      expectTypeOf(result.value).toEqualTypeOf<NewPlant>();
    }
  });

  it('takes the strings of a form', () => {
    validateNewPlantForm({ id: '1', name: 'Fern' });
    validateNewPlantForm({ id: '1', name: 'Fern', tag: '' });
    // @ts-expect-error the form holds the id as text
    validateNewPlantForm({ id: 1, name: 'Fern' });
  });
});
