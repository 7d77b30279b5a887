import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ErrorCode,
  PlantStoreApiError,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
  createPlant,
  createPlantStoreClient,
} from '../src/index.js';
import { clock } from '../src/internal/retry.js';
import { errorAnswer, fakeFetch, json } from './fake-fetch.js';

const token = 'secret-token';
const fern = { id: 1, name: 'Fern', tag: 'shade' };

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

it('posts the NewPlant with the bearer token and resolves to the Plant', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern', tag: 'shade' }));

  const plant = await createPlant(token, fern, { fetch });

  expect(plant).toEqual({ name: 'Fern', tag: 'shade' });
  expect(sent).toHaveLength(1);
  expect(sent[0]!.url).toBe('http://127.0.0.1:4010/plants');
  expect(sent[0]!.method).toBe('POST');
  expect(sent[0]!.headers.get('authorization')).toBe('Bearer secret-token');
  expect(sent[0]!.headers.get('content-type')).toBe('application/json');
  expect(sent[0]!.body).toBe('{"id":1,"name":"Fern","tag":"shade"}');
});

it('keeps a base URL path prefix and drops one trailing slash', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
  const client = createPlantStoreClient({ baseUrl: 'http://host:4010/api/', fetch });

  await client.createPlant(token, { id: 1, name: 'Fern' });

  expect(sent[0]!.url).toBe('http://host:4010/api/plants');
});

it('keeps the defaults for client options given as undefined', async () => {
  const { fetch, sent } = fakeFetch(errorAnswer(503, 50001));
  const client = createPlantStoreClient({ fetch, baseUrl: undefined, timeout: undefined, retries: undefined });
  vi.spyOn(clock, 'sleep').mockResolvedValue();

  await expect(client.createPlant(token, fern)).rejects.toSatisfy(PlantStoreApiError.is);

  expect(sent[0]!.url).toBe('http://127.0.0.1:4010/plants');
  expect(sent).toHaveLength(3);
});

it('sends the client headers, the call headers over them, and never lets them replace the token', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
  const client = createPlantStoreClient({ fetch, headers: { 'x-app': 'shop', 'x-level': 'client' } });

  await client.createPlant(token, fern, { headers: { 'x-level': 'call', authorization: 'Bearer stolen' } });

  expect(sent[0]!.headers.get('x-app')).toBe('shop');
  expect(sent[0]!.headers.get('x-level')).toBe('call');
  expect(sent[0]!.headers.get('authorization')).toBe('Bearer secret-token');
});

it('merges header names without regard to case, lets null remove one and undefined leave it, and lets none replace the content type, request id or token', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
  const client = createPlantStoreClient({
    fetch,
    headers: { 'X-App': 'shop', 'x-drop': 'client', 'x-keep': 'client' },
  });
  const callHeaders = {
    'x-app': 'call',
    'X-Drop': null,
    'x-keep': undefined,
    'Content-Type': 'text/plain',
    'X-Request-Id': 'from-headers',
    AUTHORIZATION: 'Bearer stolen',
  } as unknown as Record<string, string>;

  await client.createPlant(token, fern, { headers: callHeaders, requestId: 'order-7' });

  const sentHeaders = sent[0]!.headers;
  expect([...sentHeaders]).toEqual([
    ['authorization', 'Bearer secret-token'],
    ['content-type', 'application/json'],
    ['x-app', 'call'],
    ['x-keep', 'client'],
    ['x-request-id', 'order-7'],
  ]);
});

it('reads a Headers object passed from plain JS as its entries', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

  await createPlant(token, fern, {
    fetch,
    headers: new Headers({ 'x-app': 'shop' }) as unknown as Record<string, string>,
  });

  expect(sent[0]!.headers.get('x-app')).toBe('shop');
  expect(sent[0]!.headers.get('authorization')).toBe('Bearer secret-token');
  expect(sent[0]!.headers.get('content-type')).toBe('application/json');
});

it('sends exactly the content type, the token and the request id when the caller brings no headers', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

  await createPlant(token, fern, { fetch, requestId: 'order-9' });

  expect([...sent[0]!.headers]).toEqual([
    ['authorization', 'Bearer secret-token'],
    ['content-type', 'application/json'],
    ['x-request-id', 'order-9'],
  ]);
});

it('sends the caller-chosen request id as X-Request-Id, and none when not asked', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

  await createPlant(token, fern, { fetch, requestId: 'order-42' });
  await createPlant(token, fern, { fetch });

  expect(sent[0]!.headers.get('x-request-id')).toBe('order-42');
  expect(sent[1]!.headers.has('x-request-id')).toBe(false);
});

it('sends only the spec fields, in spec order, whatever else the object carries', async () => {
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
  const withExtras = { name: 'Fern', secret: 'x', id: 7 } as { id: number; name: string };

  await createPlant(token, withExtras, { fetch });

  expect(sent[0]!.body).toBe('{"id":7,"name":"Fern"}');
});

it('looks up globalThis.fetch at call time, so a fetch installed after the client was made is used', async () => {
  const client = createPlantStoreClient();
  const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
  vi.stubGlobal('fetch', fetch);

  await expect(client.createPlant(token, fern)).resolves.toEqual({ name: 'Fern' });
  await expect(createPlant(token, fern)).resolves.toEqual({ name: 'Fern' });
  expect(sent).toHaveLength(2);
});

describe('int64 ids', () => {
  it.each([
    ['2^53+1 as a bigint', 9007199254740993n, '9007199254740993'],
    ['-2^63', -(2n ** 63n), '-9223372036854775808'],
    ['2^63-1', 2n ** 63n - 1n, '9223372036854775807'],
    ['the largest safe number', Number.MAX_SAFE_INTEGER, '9007199254740991'],
    ['the smallest safe number', Number.MIN_SAFE_INTEGER, '-9007199254740991'],
    ['zero', 0, '0'],
  ])('sends %s with its exact digits', async (_, id, digits) => {
    const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

    await createPlant(token, { id, name: 'Fern' }, { fetch });

    expect(sent[0]!.body).toBe(`{"id":${digits},"name":"Fern"}`);
  });

  it.each([
    ['2^63 (one above the range)', 2n ** 63n],
    ['-2^63-1 (one below the range)', -(2n ** 63n) - 1n],
    ['2^53+1 as a number (already rounded)', 2 ** 53 + 1],
    ['-(2^53) as a number', -(2 ** 53)],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '1' as unknown as number],
    ['null', null as unknown as number],
  ])('refuses %s before sending, naming the field and the rule', async (_, id) => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));

    const error = await createPlant(token, { id, name: 'Fern' }, { fetch }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toMatch(
      /^id must be an integer between -9223372036854775808 and 9223372036854775807; numbers above 2\^53-1 must be passed as bigint/,
    );
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('input refused before sending', () => {
  it.each([
    ['an empty token', '', fern, 'token must be a non-empty string'],
    ['a token that is not a string', 42, fern, 'token must be a non-empty string'],
    ['a newPlant that is not an object', token, 'Fern', 'newPlant must be an object'],
    ['a null newPlant', token, null, 'newPlant must be an object'],
    ['a missing name', token, { id: 1 }, 'name must be a string'],
    ['a name that is not a string', token, { id: 1, name: 5 }, 'name must be a string'],
    ['a null tag', token, { id: 1, name: 'Fern', tag: null }, 'tag must be a string when present'],
    ['a tag that is not a string', token, { id: 1, name: 'Fern', tag: 3 }, 'tag must be a string when present'],
  ])('rejects %s with a TypeError and sends nothing', async (_, badToken, plant, message) => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));

    const call = createPlant(badToken as string, plant as typeof fern, { fetch });

    await expect(call).rejects.toThrow(TypeError);
    await expect(call).rejects.toThrow(message);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('sends no tag when the tag is undefined', async () => {
    const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

    await createPlant(token, { id: 1, name: 'Fern', tag: undefined }, { fetch });

    expect(sent[0]!.body).toBe('{"id":1,"name":"Fern"}');
  });

  it.each([
    ['a token with a line break', 'abc\r\nX-Evil: 1', {}],
    ['a token with NUL', 'abc\0', {}],
    ['a token past U+00FF', 'abc\u20ac', {}],
    ['a request id with a line break', token, { requestId: 'a\nb' }],
    ['a request id past U+00FF', token, { requestId: '\u{1F331}' }],
  ])('refuses %s with the TypeError of Headers, and sends nothing', async (_, badToken, options) => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));

    const error = await createPlant(badToken, fern, { fetch, ...options }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect(PlantStoreError.is(error)).toBe(false);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('sends a token of Latin-1 characters as they are, as fetch would', async () => {
    const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));

    await createPlant('caf\u00e9', fern, { fetch });

    expect(sent[0]!.headers.get('authorization')).toBe('Bearer caf\u00e9');
  });

  it('rethrows a bad header as it is, without calling it a network failure or retrying', async () => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));

    const error = await createPlant(token, fern, { fetch, headers: { 'x-bad': 'a\nb' } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect(PlantStoreError.is(error)).toBe(false);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('errors', () => {
  const cases = [
    [400, ErrorCode.INVALID_JSON],
    [400, ErrorCode.INVALID_PLANT],
    [400, ErrorCode.ID_CONFLICT],
    [401, ErrorCode.MISSING_CREDENTIALS],
    [401, ErrorCode.INVALID_TOKEN],
    [404, ErrorCode.NOT_FOUND],
    [405, ErrorCode.METHOD_NOT_ALLOWED],
    [413, ErrorCode.BODY_TOO_LARGE],
    [415, ErrorCode.UNSUPPORTED_MEDIA_TYPE],
    [500, ErrorCode.INTERNAL_ERROR],
  ] as const;

  it.each(cases)(
    'maps a %i answer with code %i to a PlantStoreApiError carrying status, code, request id and body',
    async (status, code) => {
      const answer = errorAnswer(status, code, 'id must be an integer', { 'x-request-id': 'abc-123' });
      const { fetch } = fakeFetch(answer);

      const error = await createPlant(token, fern, { fetch, retries: 0 }).catch((e: unknown) => e);

      expect(PlantStoreApiError.is(error)).toBe(true);
      expect(error).toBeInstanceOf(PlantStoreApiError);
      expect(error).toBeInstanceOf(PlantStoreError);
      const apiError = error as PlantStoreApiError;
      expect(apiError.name).toBe('PlantStoreApiError');
      expect(apiError.status).toBe(status);
      expect(apiError.code).toBe(code);
      expect(apiError.requestId).toBe('abc-123');
      expect(apiError.body).toEqual({ error: code, message: 'id must be an integer' });
      expect(apiError.response.status).toBe(status);
      expect(apiError.message).toBe(`POST http://127.0.0.1:4010/plants failed with ${status}: id must be an integer`);
    },
  );

  it('leaves code undefined for an error value this client does not know, and keeps the body', async () => {
    const { fetch } = fakeFetch(errorAnswer(400, 49999, 'something new'));

    const error = (await createPlant(token, fern, { fetch }).catch((e: unknown) => e)) as PlantStoreApiError;

    expect(error.code).toBeUndefined();
    expect(error.body).toEqual({ error: 49999, message: 'something new' });
    expect(error.message).toMatch(/failed with 400: something new$/);
  });

  it('still gives a PlantStoreApiError, with no code and a clear message, for a non-JSON error answer', async () => {
    const html = new Response('<h1>Bad Gateway</h1>', { status: 502, headers: { 'content-type': 'text/html' } });
    const { fetch } = fakeFetch(html);

    const error = (await createPlant(token, fern, { fetch, retries: 0 }).catch(
      (e: unknown) => e,
    )) as PlantStoreApiError;

    expect(PlantStoreApiError.is(error)).toBe(true);
    expect(error.status).toBe(502);
    expect(error.code).toBeUndefined();
    expect(error.body).toBeUndefined();
    expect(error.requestId).toBeUndefined();
    expect(error.message).toBe(
      'POST http://127.0.0.1:4010/plants failed with 502: no Error body in the answer (text/html)',
    );
  });

  it('still gives a PlantStoreApiError for JSON that is not an Error body', async () => {
    const { fetch } = fakeFetch(json(400, { problem: 'nope' }));

    const error = (await createPlant(token, fern, { fetch }).catch((e: unknown) => e)) as PlantStoreApiError;

    expect(PlantStoreApiError.is(error)).toBe(true);
    expect(error.code).toBeUndefined();
    expect(error.message).toMatch(/failed with 400: no Error body in the answer \(application\/json\)$/);
  });

  it('gives a PlantStoreApiError when a 200 answer is not a Plant', async () => {
    const { fetch } = fakeFetch(
      new Response('not json', { status: 200 }),
      json(200, { name: 5 }),
      // openapi.yaml: tag is a string when present, so null is not a Plant's tag.
      json(200, { name: 'Fern', tag: null }),
    );

    const notJson = await createPlant(token, fern, { fetch }).catch((e: unknown) => e);
    const notPlant = await createPlant(token, fern, { fetch }).catch((e: unknown) => e);
    const nullTag = await createPlant(token, fern, { fetch }).catch((e: unknown) => e);

    for (const error of [notJson, notPlant, nullTag]) {
      expect(PlantStoreApiError.is(error)).toBe(true);
      expect((error as PlantStoreApiError).status).toBe(200);
      expect((error as PlantStoreApiError).message).toMatch(/failed with 200: no Plant in the answer$/);
    }
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('gives a PlantStoreNetworkError with the fetch error as cause when the connection fails', async () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:4010') });
    const { fetch } = fakeFetch(refused);

    const error = await createPlant(token, fern, { fetch, retries: 0 }).catch((e: unknown) => e);

    expect(PlantStoreNetworkError.is(error)).toBe(true);
    expect(PlantStoreApiError.is(error)).toBe(false);
    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    expect((error as PlantStoreNetworkError).name).toBe('PlantStoreNetworkError');
    expect((error as PlantStoreNetworkError).cause).toBe(refused);
    expect((error as PlantStoreNetworkError).message).toBe('POST http://127.0.0.1:4010/plants failed: fetch failed');
  });

  it('names every error class and guards each one apart from the others', () => {
    const response = errorAnswer(400, 40002);
    const errors = [
      new PlantStoreError('base'),
      new PlantStoreApiError('POST x', response, undefined, 'p'),
      new PlantStoreNetworkError('POST x', new Error('down')),
      new PlantStoreTimeoutError('POST x', 5),
    ];
    const guards = [PlantStoreApiError.is, PlantStoreNetworkError.is, PlantStoreTimeoutError.is];

    expect(errors.map((e) => e.name)).toEqual([
      'PlantStoreError',
      'PlantStoreApiError',
      'PlantStoreNetworkError',
      'PlantStoreTimeoutError',
    ]);
    expect(errors.every((e) => PlantStoreError.is(e))).toBe(true);
    expect(guards.map((guard) => errors.filter((e) => guard(e)).length)).toEqual([1, 1, 1]);
    expect([new Error('x'), null, undefined, 'PlantStoreApiError', {}].some((v) => PlantStoreError.is(v))).toBe(false);
  });
});
