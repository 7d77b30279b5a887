// openapi-fetch middleware in the client's options and a call's: run for every attempt (a retry, the
// attempt with a refreshed token), the client's before the call's, a Request of onRequest's sent as
// it is, every answer shown to onResponse and every failure to get one to onError.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import {
  ErrorCode,
  type Middleware,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
  createPlant,
  createPlantStoreClient,
} from '../src/index.js';
import { clock } from '../src/internal/retry.js';
import { errorAnswer, fakeFetch, hangingFetch, json } from './fake-fetch.js';

const token = 'secret-token';
const fern = { id: 1, name: 'Fern' };

beforeEach(() => {
  // Backoff is not waited for.
  vi.spyOn(clock, 'sleep').mockResolvedValue();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A middleware that writes what it sees into `log`, each line under its own name. */
function recorder(name: string, log: string[]): Middleware {
  return {
    onRequest({ request }) {
      log.push(`${name} request ${request.method} ${request.headers.get('authorization')}`);
    },
    onResponse({ response }) {
      log.push(`${name} response ${response.status}`);
    },
    onError({ error }) {
      log.push(`${name} error ${(error as Error).name}`);
    },
  };
}

it('runs the client middleware, then the call middleware, on every attempt, with every answer', async () => {
  const { fetch } = fakeFetch(errorAnswer(503, ErrorCode.STORE_UNAVAILABLE), json(200, { name: 'Fern' }));
  const log: string[] = [];
  const client = createPlantStoreClient({ fetch, middleware: [recorder('client', log)] });

  await expect(client.createPlant(token, fern, { middleware: [recorder('call', log)] })).resolves.toEqual({
    name: 'Fern',
  });

  // onResponse runs in reverse order, as in openapi-fetch: the call's, then the client's.
  const attempt = (status: number) => [
    'client request POST Bearer secret-token',
    'call request POST Bearer secret-token',
    `call response ${status}`,
    `client response ${status}`,
  ];
  expect(log).toEqual([...attempt(503), ...attempt(200)]);
});

it("sends onRequest's Request, with its headers and the create's body, on each attempt", async () => {
  const { fetch, sent } = fakeFetch(errorAnswer(503, ErrorCode.STORE_UNAVAILABLE), json(200, { name: 'Fern' }));
  let attempts = 0;
  const numbered: Middleware = {
    onRequest({ request }) {
      const headers = new Headers(request.headers);
      headers.set('x-attempt', String(++attempts));
      return new Request(request, { headers });
    },
  };

  await createPlant(token, { id: 7, name: 'Fern', tag: 'shade' }, { fetch, middleware: [numbered] });

  expect(sent.map((request) => request.headers.get('x-attempt'))).toEqual(['1', '2']);
  expect(sent.map((request) => request.body)).toEqual(Array(2).fill('{"id":7,"name":"Fern","tag":"shade"}'));
  expect(sent.map((request) => [request.method, request.url])).toEqual(
    Array(2).fill(['POST', 'http://127.0.0.1:4010/plants']),
  );
});

it("gives onRequest the call's headers: the merged client and call headers, the token, the request id", async () => {
  const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
  let seen: [string, string][] = [];
  const client = createPlantStoreClient({
    fetch,
    headers: { 'x-app': 'shop' },
    middleware: [
      {
        onRequest({ request }) {
          seen = [...request.headers];
        },
      },
    ],
  });

  await client.createPlant(token, fern, { headers: { 'x-level': 'call' }, requestId: 'order-3' });

  expect(seen).toEqual([
    ['authorization', 'Bearer secret-token'],
    ['content-type', 'application/json'],
    ['x-app', 'shop'],
    ['x-level', 'call'],
    ['x-request-id', 'order-3'],
  ]);
});

it('runs again for the attempt with a refreshed token, which it sees', async () => {
  const { fetch } = fakeFetch(errorAnswer(401, ErrorCode.INVALID_TOKEN), json(200, { name: 'Fern' }));
  const log: string[] = [];

  await createPlant(({ refresh }) => (refresh ? 'renewed' : 'expired'), fern, {
    fetch,
    middleware: [recorder('m', log)],
  });

  expect(log).toEqual([
    'm request POST Bearer expired',
    'm response 401',
    'm request POST Bearer renewed',
    'm response 200',
  ]);
});

it('shows onError every network failure and timeout, retried attempts included', async () => {
  const down = new TypeError('fetch failed');
  const log: string[] = [];

  const network = fakeFetch(down);
  const lost = await createPlant(token, fern, {
    fetch: network.fetch,
    retries: 1,
    middleware: [recorder('m', log)],
  }).catch((e: unknown) => e);
  const hanging = hangingFetch();
  const late = await createPlant(token, fern, {
    fetch: hanging.fetch,
    retries: 0,
    timeout: 10,
    middleware: [recorder('m', log)],
  }).catch((e: unknown) => e);

  expect(PlantStoreNetworkError.is(lost) && lost.cause).toBe(down);
  expect(PlantStoreTimeoutError.is(late)).toBe(true);
  expect(log.filter((line) => line.includes('error'))).toEqual([
    'm error TypeError',
    'm error TypeError',
    'm error AbortError',
  ]);
});

it("rejects with an onRequest's throw as it is, without sending or retrying", async () => {
  const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
  const refused = new Error('no request leaves without a trace id');

  const error = await createPlant(token, fern, {
    fetch,
    middleware: [
      {
        onRequest() {
          throw refused;
        },
      },
    ],
  }).catch((e: unknown) => e);

  expect(error).toBe(refused);
  expect(fetch).not.toHaveBeenCalled();
});

it("names the request in its messages when an onRequest answers in fetch's place, as when fetch answers", async () => {
  const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
  const answering = (answer: Response): Middleware => ({ onRequest: () => answer.clone() });
  const messageOf = (promise: Promise<unknown>) => promise.then(String, (e: unknown) => (e as Error).message);
  const unavailable = errorAnswer(503, ErrorCode.STORE_UNAVAILABLE, 'down for a moment');
  const empty = json(200, {});

  // The same answers from fetch, for the messages to be compared with.
  const fromFetch = [
    await messageOf(createPlant(token, fern, { fetch: fakeFetch(unavailable).fetch, retries: 0 })),
    await messageOf(createPlant(token, fern, { fetch: fakeFetch(empty).fetch, baseUrl: 'http://127.0.0.1:4010/api/' })),
  ];
  const fromMiddleware = [
    await messageOf(createPlant(token, fern, { fetch, retries: 0, middleware: [answering(unavailable)] })),
    await messageOf(
      createPlantStoreClient({
        fetch,
        baseUrl: 'http://127.0.0.1:4010/api/',
        middleware: [answering(empty)],
      }).createPlant(token, fern),
    ),
  ];

  expect(fromMiddleware).toEqual([
    'POST http://127.0.0.1:4010/plants failed with 503: down for a moment',
    'POST http://127.0.0.1:4010/api/plants failed with 200: no Plant in the answer',
  ]);
  expect(fromMiddleware).toEqual(fromFetch);
  expect(fetch).not.toHaveBeenCalled();
});

it('hands fetch a URL and an init without middleware (an empty list is none), and a Request with some', async () => {
  const inputs: unknown[] = [];
  const { fetch } = fakeFetch(async () => json(200, { name: 'Fern' }));
  const spy: typeof globalThis.fetch = (input, init) => {
    inputs.push(input);
    return fetch(input, init);
  };

  await createPlant(token, fern, { fetch: spy });
  await createPlant(token, fern, { fetch: spy, middleware: [] });
  await createPlantStoreClient({ fetch: spy, middleware: [] }).createPlant(token, fern, { middleware: [] });
  await createPlant(token, fern, { fetch: spy, middleware: [{ onResponse() {} }] });

  expect(inputs.map((input) => typeof input)).toEqual(['string', 'string', 'string', 'object']);
  expect(inputs[3]).toBeInstanceOf(Request);
});
