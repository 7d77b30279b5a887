import { describe, expectTypeOf, it } from 'vitest';
import {
  ErrorCode,
  isCreatePlantError,
  type PlantStoreApiError,
  type PlantStoreNetworkError,
  type PlantStoreTimeoutError,
  userMessages,
  type CreatePlantError,
} from '../src/index.js';

describe('CreatePlantError types', () => {
  it('is the union of the three errors a failed request rejects with', () => {
    expectTypeOf<CreatePlantError>().toEqualTypeOf<
      PlantStoreApiError | PlantStoreNetworkError | PlantStoreTimeoutError
    >();
  });

  it('narrows an unknown value with the guard, then on `name`', () => {
    const caught: unknown = null;
    if (isCreatePlantError(caught)) {
      expectTypeOf(caught).toEqualTypeOf<CreatePlantError>();
      if (caught.name === 'PlantStoreApiError') expectTypeOf(caught.code).toEqualTypeOf<ErrorCode | undefined>();
      else if (caught.name === 'PlantStoreTimeoutError') expectTypeOf(caught.timeout).toEqualTypeOf<number>();
      else expectTypeOf(caught).toEqualTypeOf<PlantStoreNetworkError>();
    }
  });

  it('has a message for every error code', () => {
    expectTypeOf(userMessages).toEqualTypeOf<{ readonly [C in ErrorCode]: string }>();
    expectTypeOf(userMessages[ErrorCode.ID_CONFLICT]).toEqualTypeOf<string>();
  });
});
