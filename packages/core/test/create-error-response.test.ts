import { expect, it } from 'vitest';
import {
  createErrorResponse,
  createMemoryStore,
  ErrorCode,
  errorStatus,
  StoreUnavailableError,
  type MemoryStore,
} from '../src/index.js';
import { AUTH_JSON, makeApp, URL_BASE } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Everything a client can observe of an answer. */
async function view(response: Response) {
  return { status: response.status, headers: [...response.headers], body: await response.text() };
}

const failingStore: MemoryStore = { ...createMemoryStore(), insert: () => Promise.reject(new Error('disk full')) };
const unavailableStore: MemoryStore = {
  ...createMemoryStore(),
  insert: () => Promise.reject(new StoreUnavailableError('the database is down')),
};

// Each row makes the app answer one failure; createErrorResponse must give the same answer for the code.
const failures: Array<
  [ErrorCode, { path?: string; method?: string; headers?: Record<string, string>; body?: string; store?: MemoryStore }]
> = [
  [ErrorCode.INVALID_JSON, { body: '{"id":' }],
  [ErrorCode.INVALID_PLANT, { body: '{"id":1,"name":7}' }],
  [ErrorCode.ID_CONFLICT, { body: '{"id":1,"name":"other"}' }],
  [ErrorCode.MISSING_CREDENTIALS, { headers: { authorization: 'Basic abc' } }],
  [ErrorCode.INVALID_TOKEN, { headers: { authorization: 'Bearer wrong' } }],
  [ErrorCode.NOT_FOUND, { path: '/api/nope' }],
  [ErrorCode.METHOD_NOT_ALLOWED, { method: 'PUT' }],
  [ErrorCode.BODY_TOO_LARGE, { body: `{"id":2,"name":"${'x'.repeat(64)}"}` }],
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE, { headers: { 'content-type': 'text/plain' } }],
  [ErrorCode.INTERNAL_ERROR, { body: '{"id":3,"name":"a"}', store: failingStore }],
  [ErrorCode.STORE_UNAVAILABLE, { body: '{"id":4,"name":"a"}', store: unavailableStore }],
];

it.each(failures)(
  'answers %s exactly as the app answers that failure, status, headers and body',
  async (code, failure) => {
    const app = makeApp({
      basePath: '/api',
      bodyLimit: 40,
      ...(failure.store !== undefined && { store: failure.store }),
    });
    if (failure.store === undefined) await app.store.insert({ id: 1n, name: 'a' });
    const request = () =>
      new Request(URL_BASE + (failure.path ?? '/api/plants'), {
        method: failure.method ?? 'POST',
        headers: { ...AUTH_JSON, 'x-request-id': 'same-1', ...failure.headers },
        ...((failure.method ?? 'POST') === 'POST' && { body: failure.body ?? '{"id":1,"name":"a"}' }),
      });
    const real = await view(await app.fetch(request()));
    expect(JSON.parse(real.body).error).toBe(code);
    const built = await view(
      createErrorResponse(code, undefined, { request: request(), basePath: '/api', bodyLimit: 40 }),
    );
    expect(built).toEqual(real);
  },
);

it('answers the two codes only the server HTTP layer sends with their statuses and its wording', async () => {
  const timeout = createErrorResponse(ErrorCode.REQUEST_TIMEOUT);
  expect(timeout.status).toBe(408);
  expect(await timeout.json()).toEqual({ error: 40801, message: 'the request was not received in time' });
  const headers = createErrorResponse(ErrorCode.HEADERS_TOO_LARGE);
  expect(headers.status).toBe(431);
  expect(await headers.json()).toEqual({ error: 43101, message: 'the request headers are over the size limit' });
});

it('answers every code the spec defines with its status and a JSON Error body', async () => {
  for (const code of Object.values(ErrorCode)) {
    const response = createErrorResponse(code);
    expect(response.status, String(code)).toBe(errorStatus[code]);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { error: number; message: string };
    expect(body.error).toBe(code);
    expect(body.message.length, String(code)).toBeGreaterThan(0);
  }
});

it('uses the default base path and body limit in the 40401 and 41301 messages when none is given', async () => {
  expect(await createErrorResponse(ErrorCode.NOT_FOUND).json()).toMatchObject({
    message: 'no such path; plants are created by POST /plants',
  });
  expect(await createErrorResponse(ErrorCode.BODY_TOO_LARGE).json()).toMatchObject({
    message: 'body must be at most 1048576 bytes',
  });
});

it('answers with the given message instead of the default', async () => {
  const response = createErrorResponse(ErrorCode.INVALID_PLANT, 'tag must be a string when present');
  expect(await response.text()).toBe('{"error":40002,"message":"tag must be a string when present"}');
});

it('echoes a sane request id, from the request or the requestId option, and replaces any other with a UUID', () => {
  const request = (id: string) => new Request(`${URL_BASE}/plants`, { headers: { 'x-request-id': id } });
  expect(
    createErrorResponse(ErrorCode.INVALID_JSON, undefined, { request: request('ui-7') }).headers.get('x-request-id'),
  ).toBe('ui-7');
  expect(
    createErrorResponse(ErrorCode.INVALID_JSON, undefined, {
      request: request('ui-7'),
      requestId: 'own-1',
    }).headers.get('x-request-id'),
  ).toBe('own-1');
  expect(
    createErrorResponse(ErrorCode.INVALID_JSON, undefined, { request: request('has space') }).headers.get(
      'x-request-id',
    ),
  ).toMatch(UUID);
  expect(
    createErrorResponse(ErrorCode.INVALID_JSON, undefined, { requestId: 'quote"' }).headers.get('x-request-id'),
  ).toMatch(UUID);
  expect(createErrorResponse(ErrorCode.INVALID_JSON).headers.get('x-request-id')).toMatch(UUID);
});

it('never echoes the bearer token the request presents as its request id', () => {
  const request = new Request(`${URL_BASE}/plants`, {
    headers: { authorization: 'Bearer my-token', 'x-request-id': 'my-token' },
  });
  const response = createErrorResponse(ErrorCode.INVALID_TOKEN, undefined, { request });
  expect(response.headers.get('x-request-id')).toMatch(UUID);
  expect(
    createErrorResponse(ErrorCode.INVALID_TOKEN, undefined, { request, requestId: 'my-token' }).headers.get(
      'x-request-id',
    ),
  ).toMatch(UUID);
});

it('adds the given headers and lets them replace its own, whatever their case', () => {
  const response = createErrorResponse(ErrorCode.METHOD_NOT_ALLOWED, undefined, {
    headers: { Allow: 'POST, OPTIONS', 'access-control-allow-origin': 'https://app.example' },
  });
  expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
});

it('refuses a code the spec does not define, a bad body limit and a base path with a host', () => {
  expect(() => createErrorResponse(40000 as ErrorCode)).toThrow(TypeError);
  expect(() => createErrorResponse(ErrorCode.BODY_TOO_LARGE, undefined, { bodyLimit: -1 })).toThrow(TypeError);
  expect(() => createErrorResponse(ErrorCode.NOT_FOUND, undefined, { basePath: 'http://h/api' })).toThrow(TypeError);
});

// Regression: from plain JS a string code passed the lookup ('40101' answered 401 with a string
// `error`), an inherited key reached the Response as a status, and any message went out as is.
it('refuses a code that is not a number, an inherited key and a message that is not a string', () => {
  expect(() => createErrorResponse('40101' as unknown as ErrorCode)).toThrow(/not an error code/);
  expect(() => createErrorResponse('toString' as unknown as ErrorCode)).toThrow(/not an error code/);
  expect(() => createErrorResponse(ErrorCode.INVALID_PLANT, 5 as unknown as string)).toThrow(
    /message must be a string/,
  );
});
