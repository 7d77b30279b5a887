import type { Middleware as OpenapiFetchMiddleware } from 'openapi-fetch';
import { describe, expectTypeOf, it } from 'vitest';
import { createPlant, createPlantStoreClient, type Middleware, type Plant, type TokenProvider } from '../src/index.js';

const fern = { id: 1, name: 'Fern' };

describe('Middleware', () => {
  it("takes openapi-fetch's own middleware, and is taken by openapi-fetch", () => {
    expectTypeOf<OpenapiFetchMiddleware>().toExtend<Middleware>();
    expectTypeOf<Required<Pick<Middleware, 'onRequest'>>>().toExtend<OpenapiFetchMiddleware>();
    expectTypeOf<Required<Pick<Middleware, 'onResponse'>>>().toExtend<OpenapiFetchMiddleware>();
    expectTypeOf<Required<Pick<Middleware, 'onError'>>>().toExtend<OpenapiFetchMiddleware>();
    expectTypeOf<Required<Middleware>>().toExtend<OpenapiFetchMiddleware>();
  });

  it('is an option of a client and of a call, whose callbacks are typed', () => {
    const fromOpenapiFetch: OpenapiFetchMiddleware = { onRequest: ({ request }) => request };
    const client = createPlantStoreClient({ middleware: [fromOpenapiFetch] });
    void client.createPlant('token', fern, {
      middleware: [
        {
          onResponse({ response, request, id }) {
            expectTypeOf(response).toEqualTypeOf<Response>();
            expectTypeOf(request).toEqualTypeOf<Request>();
            expectTypeOf(id).toEqualTypeOf<string>();
          },
          onError: ({ error }) => (error instanceof Error ? error : undefined),
        },
      ],
    });
  });

  it('does not compile with a callback that returns what openapi-fetch cannot use', () => {
    // @ts-expect-error onRequest returns a Request, a Response or nothing
    void createPlant('token', fern, { middleware: [{ onRequest: () => 'sent' }] });
  });
});

describe('TokenProvider', () => {
  it('is taken wherever a token is, and resolves to a Plant', () => {
    const provider: TokenProvider = async ({ refresh }) => (refresh ? 'new-token' : 'token');
    expectTypeOf(createPlant(provider, fern)).toEqualTypeOf<Promise<Plant>>();
    expectTypeOf(createPlantStoreClient().createPlant(() => 'token', fern)).toEqualTypeOf<Promise<Plant>>();
    expectTypeOf<Parameters<TokenProvider>[0]>().toEqualTypeOf<{ refresh: boolean }>();
  });

  it('does not compile when it gives something other than a string', () => {
    // @ts-expect-error a provider gives the token as a string
    void createPlant(() => 42, fern);
    // @ts-expect-error a provider gives the token as a string, or a promise of one
    void createPlant(async () => undefined, fern);
  });
});
