import { describe, expectTypeOf, it } from 'vitest';
import {
  ErrorCode,
  PlantStoreApiError,
  createPlant,
  createPlantStoreClient,
  type NewPlant,
  type Plant,
} from '../src/index.js';
import type { components } from '../src/generated/openapi.js';

const token = 'secret-token';

describe('createPlant types', () => {
  it('resolves to the spec Plant', () => {
    expectTypeOf(createPlant(token, { id: 1, name: 'Fern' })).toEqualTypeOf<Promise<Plant>>();
    expectTypeOf<Plant>().toEqualTypeOf<components['schemas']['Plant']>();
    expectTypeOf(createPlantStoreClient().createPlant).returns.toEqualTypeOf<Promise<Plant>>();
  });

  it('takes an id as a number or a bigint, with the spec name and optional tag', () => {
    expectTypeOf<NewPlant['id']>().toEqualTypeOf<number | bigint>();
    expectTypeOf<NewPlant['name']>().toEqualTypeOf<string>();
    expectTypeOf<NewPlant>().toHaveProperty('tag').toEqualTypeOf<string | undefined>();
    createPlant(token, { id: 9007199254740993n, name: 'Fern', tag: 'shade' });
  });

  it('does not compile without a name', () => {
    // @ts-expect-error name is required by the spec
    createPlant(token, { id: 1 });
  });

  it('does not compile with a string id', () => {
    // @ts-expect-error id is an integer (number or bigint), never a string
    createPlant(token, { id: '1', name: 'Fern' });
  });

  it('does not compile without an id', () => {
    // @ts-expect-error id is required in a NewPlant
    createPlant(token, { name: 'Fern' });
  });

  it('does not compile with a token that is not a string', () => {
    // @ts-expect-error the bearer token is a string
    createPlant(42, { id: 1, name: 'Fern' });
  });

  it('types the error code as the generated ErrorCode', () => {
    const error = new PlantStoreApiError('POST x', new Response(), undefined, 'p');
    expectTypeOf(error.code).toEqualTypeOf<ErrorCode | undefined>();
    expectTypeOf(ErrorCode.ID_CONFLICT).toEqualTypeOf<40003>();
    expectTypeOf(error.body).toEqualTypeOf<components['schemas']['Error'] | undefined>();
    expectTypeOf(error.status).toEqualTypeOf<number>();
    expectTypeOf(error.requestId).toEqualTypeOf<string | undefined>();
  });

  it('narrows an unknown error with the static guard', () => {
    const caught: unknown = null;
    if (PlantStoreApiError.is(caught)) {
      expectTypeOf(caught).toEqualTypeOf<PlantStoreApiError>();
      // @ts-expect-error 99999 is not one of the spec's error codes
      if (caught.code === 99999) throw caught;
    }
  });
});
