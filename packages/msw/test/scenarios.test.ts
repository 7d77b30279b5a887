import {
  createPlant,
  ErrorCode,
  PlantStoreApiError,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
} from '@plant-store/client';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { getResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const mocks = createPlantStoreHandlers();
const server = setupServer(...mocks.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  server.resetHandlers();
  await mocks.store.clear();
});
afterAll(() => server.close());

const { scenarios } = mocks;
// Retries off: each scenario is judged on one answer, not on the client's backoff.
const once = { retries: 0 } as const;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

it('answers unauthorized() with 401, code 40102 and an invalid_token challenge', async () => {
  server.use(scenarios.unauthorized());
  const response = await fetch(`${mocks.baseUrl}/plants`, { method: 'POST', headers: { 'x-request-id': 'ui-1' } });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_token"');
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('x-request-id')).toBe('ui-1');
  expect(await response.json()).toEqual({ error: 40102, message: 'the bearer token is not accepted' });
});

it('answers unauthorized(40101) with the plain Bearer challenge, as the client sees it', async () => {
  server.use(scenarios.unauthorized(ErrorCode.MISSING_CREDENTIALS));
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect(PlantStoreApiError.is(error)).toBe(true);
  expect(error).toMatchObject({ status: 401, code: 40101 });
  expect((error as PlantStoreApiError).response.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
});

it.each([
  ['invalidJson', () => scenarios.invalidJson(), 40001],
  ['invalidPlant', () => scenarios.invalidPlant(), 40002],
  ['idConflict', () => scenarios.idConflict(), 40003],
] as const)('answers %s() with 400 and its code', async (_name, scenario, code) => {
  server.use(scenario());
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect(error).toMatchObject({ status: 400, code });
});

it('answers invalidPlant(message) with the given message', async () => {
  server.use(scenarios.invalidPlant('id must be an integer between -9223372036854775808 and 9223372036854775807'));
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect((error as PlantStoreApiError).body).toEqual({
    error: 40002,
    message: 'id must be an integer between -9223372036854775808 and 9223372036854775807',
  });
});

it('answers internalError() with 500 and 50001', async () => {
  server.use(scenarios.internalError());
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect(error).toMatchObject({ status: 500, code: ErrorCode.INTERNAL_ERROR });
});

it('answers storeUnavailable() with 503, 50301 and Retry-After: 1', async () => {
  server.use(scenarios.storeUnavailable());
  const response = await fetch(`${mocks.baseUrl}/plants`, { method: 'POST' });
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(await response.json()).toMatchObject({ error: ErrorCode.STORE_UNAVAILABLE });
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect(error).toMatchObject({ status: 503, code: ErrorCode.STORE_UNAVAILABLE });
});

it('answers storeUnavailable({ once, retryAfter: 0 }) once, so the client retries at once and the plant is created', async () => {
  server.use(scenarios.storeUnavailable({ once: true, retryAfter: 0 }));
  await expect(createPlant('t', { id: 5, name: 'Back' }, { retries: 1 })).resolves.toEqual({ name: 'Back' });
  expect(await mocks.store.get(5n)).toEqual({ id: 5n, name: 'Back' });
});

it('refuses a storeUnavailable() retryAfter that is not whole seconds when the scenario is written', () => {
  expect(() => scenarios.storeUnavailable({ retryAfter: 0.5 })).toThrow(TypeError);
});

it.each([
  ['rateLimited', 429, ErrorCode.RATE_LIMITED],
  ['authUnavailable', 503, ErrorCode.AUTH_UNAVAILABLE],
] as const)(
  'answers %s({ retryAfter }) with its status, code and Retry-After, and no-store',
  async (name, status, code) => {
    server.use(scenarios[name]({ retryAfter: 7 }));
    const response = await fetch(`${mocks.baseUrl}/plants`, { method: 'POST' });
    expect(response.status).toBe(status);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toMatchObject({ error: code });
    const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
    expect(error).toMatchObject({ status, code });
  },
);

it.each(['rateLimited', 'authUnavailable'] as const)(
  'answers %s({ once, retryAfter: 0 }) once, so the client retries at once and the plant is created',
  async (name) => {
    server.use(scenarios[name]({ once: true, retryAfter: 0 }));
    await expect(createPlant('t', { id: 6, name: 'Later' }, { retries: 1 })).resolves.toEqual({ name: 'Later' });
    expect(await mocks.store.get(6n)).toEqual({ id: 6n, name: 'Later' });
  },
);

it('refuses a rateLimited() or authUnavailable() retryAfter that is not whole seconds', () => {
  expect(() => scenarios.rateLimited({ retryAfter: -1 })).toThrow(/rateLimited\(\) takes retryAfter/);
  expect(() => scenarios.authUnavailable({ retryAfter: 1.5 })).toThrow(/authUnavailable\(\) takes retryAfter/);
});

it('accepts only the listed tokens when given a list, as the server does', async () => {
  const strict = createPlantStoreHandlers({ baseUrl: 'http://strict.test', tokens: ['good-token'] });
  const answer = async (token: string) =>
    (
      await strict.app.fetch(
        new Request('http://strict.test/plants', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{"id":1,"name":"a"}',
        }),
      )
    ).status;
  expect(await answer('good-token')).toBe(200);
  expect(await answer('any-other')).toBe(401);
});

it('answers error(code) with the status that goes with the code, Allow included for 405', async () => {
  server.use(scenarios.error(ErrorCode.METHOD_NOT_ALLOWED));
  const response = await fetch(`${mocks.baseUrl}/plants`, { method: 'POST' });
  expect(response.status).toBe(405);
  expect(response.headers.get('allow')).toBe('POST');
  expect(await response.json()).toMatchObject({ error: 40501 });
});

it('fails the connection with networkError(), which the client reports as PlantStoreNetworkError', async () => {
  server.use(scenarios.networkError());
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, once));
  expect(PlantStoreNetworkError.is(error)).toBe(true);
  expect(await mocks.store.size()).toBe(0);
});

it('fails only the first request with networkError({ once: true }), so a retrying client succeeds', async () => {
  server.use(scenarios.networkError({ once: true }));
  await expect(createPlant('t', { id: 1, name: 'a' }, { retries: 1 })).resolves.toEqual({ name: 'a' });
  expect(await mocks.store.size()).toBe(1);
});

it('never answers with slow("infinite"), so the client times out', async () => {
  server.use(scenarios.slow('infinite'));
  const error = await failure(createPlant('t', { id: 1, name: 'a' }, { retries: 0, timeout: 50 }));
  expect(PlantStoreTimeoutError.is(error)).toBe(true);
});

it('answers slow(ms) with the real answer once the delay is over', async () => {
  server.use(scenarios.slow(20));
  await expect(createPlant('t', { id: 3, name: 'Late' }, once)).resolves.toEqual({ name: 'Late' });
  expect(await mocks.store.get(3n)).toEqual({ id: 3n, name: 'Late' });
});

it('overrides createPlant only: other methods still get the service 405 while a scenario is in use', async () => {
  server.use(scenarios.internalError());
  const response = await fetch(`${mocks.baseUrl}/plants`, { method: 'GET' });
  expect(response.status).toBe(405);
});

// A scenario must be indistinguishable from the real failure it stands for: same status, the headers
// a client reads, and the same body text.
it.each([
  [
    'unauthorized()',
    () => scenarios.unauthorized(),
    { authorization: 'Bearer wrong', 'content-type': 'application/json' },
    '{"id":1,"name":"a"}',
  ],
  [
    'unauthorized(40101)',
    () => scenarios.unauthorized(ErrorCode.MISSING_CREDENTIALS),
    { 'content-type': 'application/json' },
    '{"id":1,"name":"a"}',
  ],
  [
    'invalidJson()',
    () => scenarios.invalidJson(),
    { authorization: 'Bearer t', 'content-type': 'application/json' },
    '{"id":',
  ],
  [
    'idConflict()',
    () => scenarios.idConflict(),
    { authorization: 'Bearer t', 'content-type': 'application/json' },
    '{"id":1,"name":"other"}',
  ],
  [
    'error(41501)',
    () => scenarios.error(ErrorCode.UNSUPPORTED_MEDIA_TYPE),
    { authorization: 'Bearer t', 'content-type': 'text/plain' },
    '{"id":1,"name":"a"}',
  ],
] as const)('answers %s exactly as the service answers that failure', async (_name, scenario, headers, body) => {
  const strict = createPlantStoreHandlers({ tokens: ['t'] });
  await strict.store.insert({ id: 1n, name: 'a' });
  const request = () =>
    new Request(`${strict.baseUrl}/plants`, {
      method: 'POST',
      headers: { ...headers, 'x-request-id': 'same-1' },
      body,
    });
  const real = await getResponse(strict.handlers, request());
  const mocked = await getResponse([scenario()], request());
  const view = async (response: Response | undefined) => ({
    status: response?.status,
    contentType: response?.headers.get('content-type'),
    challenge: response?.headers.get('www-authenticate'),
    requestId: response?.headers.get('x-request-id'),
    body: await response?.text(),
  });
  expect(await view(mocked)).toEqual(await view(real));
});

it('answers bodyTooLarge() and error(40401) with the limit and base path of its own handler set, as the service does', async () => {
  const api = createPlantStoreHandlers({ baseUrl: 'http://127.0.0.1:4010/api', bodyLimit: 32 });
  const request = (path: string, body: string) =>
    new Request(`http://127.0.0.1:4010${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json', 'x-request-id': 'same-2' },
      body,
    });
  const tooLarge = `{"id":1,"name":"${'x'.repeat(64)}"}`;
  const real = await getResponse(api.handlers, request('/api/plants', tooLarge));
  const mocked = await getResponse([api.scenarios.bodyTooLarge()], request('/api/plants', tooLarge));
  expect([real?.status, mocked?.status]).toEqual([413, 413]);
  expect(await mocked?.text()).toBe('{"error":41301,"message":"body must be at most 32 bytes"}');
  expect(await real?.text()).toBe('{"error":41301,"message":"body must be at most 32 bytes"}');
  const notFound = await getResponse(api.handlers, request('/api/elsewhere', '{}'));
  const mockedNotFound = await getResponse([api.scenarios.error(ErrorCode.NOT_FOUND)], request('/api/plants', '{}'));
  expect([notFound?.status, mockedNotFound?.status]).toEqual([404, 404]);
  expect(await mockedNotFound?.text()).toBe(await notFound?.text());
  expect(
    await getResponse([api.scenarios.error(ErrorCode.NOT_FOUND)], request('/api/plants', '{}')).then((r) => r?.json()),
  ).toMatchObject({
    message: 'no such path; plants are created by POST /api/plants',
  });
});

// Regression: bad arguments were taken when the scenario was written and failed only when a request
// came, as MSW's 500 with a stack trace.
it('refuses an unknown error code and a bad delay where the scenario is written', () => {
  expect(() => scenarios.error(12345 as ErrorCode)).toThrow(/not an error code/);
  expect(() => scenarios.error(ErrorCode.INVALID_PLANT, 5 as unknown as string)).toThrow(/message must be a string/);
  for (const ms of ['forever', -1, Number.NaN, 2 ** 31]) {
    expect(() => scenarios.slow(ms as number), String(ms)).toThrow(/slow\(\) takes milliseconds/);
  }
  expect(() => scenarios.slow(0)).not.toThrow();
  expect(() => scenarios.slow('infinite')).not.toThrow();
});
