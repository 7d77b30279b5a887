import { createPlant, ErrorCode, PlantStoreApiError } from '@plant-store/client';
import { createMemoryStore, createPlantStoreHandlers } from '@plant-store/msw';
import { getResponse, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const BASE = 'http://127.0.0.1:4010';
const mocks = createPlantStoreHandlers();
const server = setupServer(...mocks.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  server.resetHandlers();
  await mocks.store.clear();
});
afterAll(() => server.close());

const post = (
  body: unknown,
  headers: Record<string, string> = { authorization: 'Bearer anything' },
  url = `${BASE}/plants`,
) =>
  new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

it('creates a plant through the real client with any bearer token by default', async () => {
  await expect(createPlant('whatever-token', { id: 1, name: 'Fern', tag: 'shade' })).resolves.toEqual({
    name: 'Fern',
    tag: 'shade',
  });
  expect(await mocks.store.list()).toEqual([{ id: 1n, name: 'Fern', tag: 'shade' }]);
});

it('still answers 40101 by default when the Authorization header is missing', async () => {
  const response = await fetch(post({ id: 1, name: 'a' }, {}));
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
  expect(await response.json()).toMatchObject({ error: ErrorCode.MISSING_CREDENTIALS });
});

it('answers 40003 for a plant the test seeded into the store', async () => {
  await mocks.store.insert({ id: 42n, name: 'Seeded' });
  const error = await createPlant('t', { id: 42, name: 'Other' }).catch((e: unknown) => e);
  expect(PlantStoreApiError.is(error)).toBe(true);
  expect(error).toMatchObject({ status: 400, code: ErrorCode.ID_CONFLICT });
  await expect(createPlant('t', { id: 42, name: 'Seeded' })).resolves.toEqual({ name: 'Seeded' });
});

it('keeps an id above 2^53 exactly in the store', async () => {
  await createPlant('t', { id: 9007199254740993n, name: 'Big' });
  expect(await mocks.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Big' });
  expect(await mocks.store.get(9007199254740992n)).toBeUndefined();
});

it('starts every test with the store the previous one cleared', async () => {
  expect(await mocks.store.size()).toBe(0);
});

it('lets a test override createPlant alone with server.use, and resetHandlers restores it', async () => {
  server.use(http.post(`${BASE}/plants`, () => HttpResponse.json({ name: 'Overridden' })));
  await expect(createPlant('t', { id: 1, name: 'Fern' })).resolves.toEqual({ name: 'Overridden' });
  // The catch-all is still the mocks': other methods keep the service's 405.
  const get = await fetch(`${BASE}/plants`, { headers: { authorization: 'Bearer t' } });
  expect(get.status).toBe(405);
  server.resetHandlers();
  await expect(createPlant('t', { id: 1, name: 'Fern' })).resolves.toEqual({ name: 'Fern' });
});

it('answers 405 with Allow: POST for other methods on /plants and 404 for other paths under the base URL', async () => {
  const get = await fetch(`${BASE}/plants`, { headers: { authorization: 'Bearer t' } });
  expect(get.status).toBe(405);
  expect(get.headers.get('allow')).toBe('POST');
  const missing = await fetch(`${BASE}/plants/1/leaves`, { headers: { authorization: 'Bearer t' } });
  expect(missing.status).toBe(404);
  expect(await missing.json()).toMatchObject({ error: ErrorCode.NOT_FOUND });
});

it('accepts only the listed tokens when tokens is a list', async () => {
  const strict = createPlantStoreHandlers({ tokens: ['s3cret'] });
  const wrong = await getResponse(strict.handlers, post({ id: 1, name: 'a' }, { authorization: 'Bearer other' }));
  expect(wrong?.status).toBe(401);
  expect(wrong?.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_token"');
  expect(await wrong?.json()).toMatchObject({ error: ErrorCode.INVALID_TOKEN });
  const right = await getResponse(strict.handlers, post({ id: 1, name: 'a' }, { authorization: 'Bearer s3cret' }));
  expect(right?.status).toBe(200);
});

it('gives each handler set its own store unless one is passed in', async () => {
  const shared = createMemoryStore();
  const a = createPlantStoreHandlers({ store: shared });
  const b = createPlantStoreHandlers();
  await getResponse(a.handlers, post({ id: 1, name: 'a' }));
  expect(a.store).toBe(shared);
  expect(await shared.size()).toBe(1);
  expect(await b.store.size()).toBe(0);
});

it('serves a base URL with a path prefix and leaves paths outside it unhandled', async () => {
  const api = createPlantStoreHandlers({ baseUrl: 'http://localhost:8080/api/' });
  expect(api.baseUrl).toBe('http://localhost:8080/api');
  expect(
    (await getResponse(api.handlers, post({ id: 1, name: 'a' }, undefined, 'http://localhost:8080/api/plants')))
      ?.status,
  ).toBe(200);
  expect((await getResponse(api.handlers, new Request('http://localhost:8080/api')))?.status).toBe(404);
  expect(
    await getResponse(api.handlers, post({ id: 1, name: 'a' }, undefined, 'http://localhost:8080/plants')),
  ).toBeUndefined();
  expect(
    await getResponse(api.handlers, post({ id: 1, name: 'a' }, undefined, 'http://127.0.0.1:4010/api/plants')),
  ).toBeUndefined();
});

it('keeps a relative base URL relative, for same-origin browser apps', () => {
  expect(createPlantStoreHandlers({ baseUrl: '/api' }).baseUrl).toBe('/api');
  expect(createPlantStoreHandlers({ baseUrl: '/api' }).createPlant.info.path).toBe('/api/plants');
});

it('refuses a base URL that is neither absolute nor a path, or that carries a query', () => {
  expect(() => createPlantStoreHandlers({ baseUrl: 'api' })).toThrow(TypeError);
  expect(() => createPlantStoreHandlers({ baseUrl: 'http://h/api?x=1' })).toThrow(TypeError);
  // MSW reads `*` as a wildcard wherever it stands: such a path could never be matched as written.
  expect(() => createPlantStoreHandlers({ baseUrl: 'http://h/v1*' })).toThrow(/"\*"/);
});

// Regression: the base URL went into MSW's path patterns as is, so `+` broke every lookup (a 500 with
// a path-to-regexp stack trace, for other handlers' requests too) and `(b)` let creates escape.
it('matches a base URL with characters MSW reads as pattern syntax literally', async () => {
  for (const baseUrl of [
    'http://x.test/a+b',
    'http://x.test/a(b)',
    'http://x.test/api:v1',
    'http://x.test/v:1',
    'http://127.0.0.1:4010/a:1',
  ]) {
    const handlers = createPlantStoreHandlers({ baseUrl });
    expect(handlers.baseUrl).toBe(baseUrl);
    const created = await getResponse(handlers.handlers, post({ id: 1, name: 'a' }, undefined, `${baseUrl}/plants`));
    expect(created?.status, baseUrl).toBe(200);
    const other = await getResponse(
      handlers.handlers,
      post({ id: 1, name: 'a' }, undefined, 'http://other.test/plants'),
    );
    expect(other, baseUrl).toBeUndefined();
  }
});

// Regression: MSW clones the request before a resolver runs, and cancelling one branch of a teed body
// waits for the other branch; awaiting that cancel in the core hung every over-limit body, through
// setupServer with a plain string body as well as through getResponse.
const unlessHung = <T>(promise: Promise<T>) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error('no answer: the core hangs cancelling a cloned request body')), 5_000).unref();
    }),
  ]);

it('answers 413 for a string body over the bodyLimit option through setupServer', async () => {
  const small = createPlantStoreHandlers({ bodyLimit: 32 });
  server.use(...small.handlers);
  // fetch(url, init), the way applications and the client call it.
  const response = await unlessHung(
    fetch(`${BASE}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, name: 'x'.repeat(64) }),
    }),
  );
  expect(response.status).toBe(413);
  expect(await response.json()).toMatchObject({ error: ErrorCode.BODY_TOO_LARGE });
});

it('answers 413 for a body over the bodyLimit option through getResponse', async () => {
  const small = createPlantStoreHandlers({ bodyLimit: 32 });
  const response = await unlessHung(getResponse(small.handlers, post({ id: 1, name: 'x'.repeat(64) })));
  expect(response?.status).toBe(413);
});
