import { createPlantStoreHandlers, ErrorCode, type MemoryStore } from '@plant-store/msw';
import type { HttpHandler } from 'msw';
import { expectTypeOf, it } from 'vitest';

it('types the handler set for setupServer and setupWorker', () => {
  const mocks = createPlantStoreHandlers({ baseUrl: '/api', tokens: ['a'], bodyLimit: 10 });
  expectTypeOf(mocks.handlers).toEqualTypeOf<HttpHandler[]>();
  expectTypeOf(mocks.createPlant).toEqualTypeOf<HttpHandler>();
  expectTypeOf(mocks.store).toEqualTypeOf<MemoryStore>();
  expectTypeOf(mocks.scenarios.networkError()).toEqualTypeOf<HttpHandler>();
});

it('accepts only the 401 codes in unauthorized() and only service codes in error()', () => {
  const { scenarios } = createPlantStoreHandlers();
  scenarios.unauthorized(ErrorCode.MISSING_CREDENTIALS);
  // @ts-expect-error 40001 is not a 401 code
  scenarios.unauthorized(ErrorCode.INVALID_JSON);
  // @ts-expect-error 40000 is not a code of the service
  scenarios.error(40000);
});

it('takes tokens as a list or "any", nothing else', () => {
  createPlantStoreHandlers({ tokens: 'any' });
  // @ts-expect-error a single token must be a list
  createPlantStoreHandlers({ tokens: 'secret' });
});
