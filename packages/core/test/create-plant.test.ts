import { describe, expect, it, vi } from 'vitest';
import { plantAnswer, plantBody } from '../../../test/support/new-plant-bodies.js';
import {
  CONFLICT_MESSAGE,
  createMemoryStore,
  createPlantStoreApp,
  DEFAULT_BODY_LIMIT,
  ErrorCode,
  type MemoryStore,
} from '../src/index.js';
import {
  barePlant,
  fullPlant,
  otherValue,
  plantOf,
  VALUE_FIELDS,
  without,
} from '../src/internal/conformance-values.js';
import { AUTH_JSON, createRequest, makeApp, plainRequest, read, TOKEN, URL_BASE } from './helpers.js';

describe('POST /plants', () => {
  it('answers 200 with the Plant, without the id, and stores the exact plant', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":7,"name":"Fern","tag":"indoor"}')));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe('{"name":"Fern","tag":"indoor"}');
    expect(await app.store.list()).toEqual([{ id: 7n, name: 'Fern', tag: 'indoor' }]);
  });

  it('answers a plant without a tag with no tag member at all', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":1,"name":"Fern"}')));
    expect(res.text).toBe('{"name":"Fern"}');
    const stored = await app.store.get(1n);
    expect(stored).toEqual({ id: 1n, name: 'Fern' });
    expect(stored && 'tag' in stored).toBe(false);
  });

  it('accepts the empty string as a name', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":1,"name":""}')));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ name: '' });
  });

  it('accepts unknown fields but never stores or echoes them', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":2,"name":"Ivy","color":"green","nested":{"id":"x"}}')));
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"name":"Ivy"}');
    expect(await app.store.get(2n)).toEqual({ id: 2n, name: 'Ivy' });
  });

  it('keeps names with quotes, backslashes and non-ASCII text intact', async () => {
    const app = makeApp();
    const name = 'Fern "the \\ great" 🌿 \u2028';
    const res = await read(await app.fetch(createRequest(JSON.stringify({ id: 3, name, tag: 'é' }))));
    expect(res.json).toEqual({ name, tag: 'é' });
  });

  it('accepts a JSON media type in any case with a charset=utf-8 parameter', async () => {
    const app = makeApp();
    for (const [i, type] of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'APPLICATION/JSON ;  Charset="utf-8"',
    ].entries()) {
      const res = await app.fetch(createRequest(`{"id":${i},"name":"a"}`, { headers: { 'content-type': type } }));
      expect(res.status, type).toBe(200);
    }
  });

  it('answers 415 41501 for other media types and a missing Content-Type', async () => {
    const app = makeApp();
    for (const type of [
      null,
      'text/plain',
      'application/json; charset=latin1',
      'application/jsonx',
      'application/json; foo=bar',
      'application/*',
    ]) {
      const headers = new Headers(AUTH_JSON);
      if (type === null) headers.delete('content-type');
      else headers.set('content-type', type);
      const res = await read(
        await app.fetch(
          new Request(`${URL_BASE}/plants`, {
            method: 'POST',
            headers,
            body: new Uint8Array(new TextEncoder().encode('{"id":1,"name":"a"}')),
          }),
        ),
      );
      expect(res.status, String(type)).toBe(415);
      expect(res.json).toEqual({
        error: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        message: 'Content-Type must be application/json',
      });
    }
    expect(await app.store.size()).toBe(0);
  });

  it('answers 400 40001 for an empty body, whitespace, invalid JSON and invalid UTF-8', async () => {
    const app = makeApp();
    const bodies: (string | Uint8Array<ArrayBuffer>)[] = [
      '',
      '   ',
      '{',
      '{"id":1,"name":"a"',
      "{'id':1}",
      'NaN',
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    ];
    for (const body of bodies) {
      const res = await read(await app.fetch(createRequest(body)));
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(ErrorCode.INVALID_JSON);
      expect(res.headers.get('content-type')).toBe('application/json');
    }
  });

  it('does not echo the JSON parser message, which quotes the body', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":1,"name":"SECRET-PAYLOAD"')));
    expect(res.text).not.toContain('SECRET');
    expect(res.json.message).toBe('body must be valid JSON');
  });

  it('answers 400 40002 naming the field and the rule', async () => {
    const app = makeApp();
    const cases: [string, string][] = [
      ['[]', 'body must be a JSON object'],
      ['null', 'body must be a JSON object'],
      ['"plant"', 'body must be a JSON object'],
      ['42', 'body must be a JSON object'],
      ['{"name":"a"}', 'id is required'],
      ['{"id":"1","name":"a"}', 'id must be an integer between -9223372036854775808 and 9223372036854775807'],
      ['{"id":null,"name":"a"}', 'id must be an integer between -9223372036854775808 and 9223372036854775807'],
      ['{"id":true,"name":"a"}', 'id must be an integer between -9223372036854775808 and 9223372036854775807'],
      ['{"id":1.5,"name":"a"}', 'id must be an integer between -9223372036854775808 and 9223372036854775807'],
      [
        '{"id":9223372036854775808,"name":"a"}',
        'id must be an integer between -9223372036854775808 and 9223372036854775807',
      ],
      ['{"id":1}', 'name is required'],
      ['{"id":1,"name":5}', 'name must be a string'],
      ['{"id":1,"name":null}', 'name must be a string'],
      ['{"id":1,"name":"a","tag":null}', 'tag must be a string when present'],
      ['{"id":1,"name":"a","tag":3}', 'tag must be a string when present'],
      ['{"id":1,"name":"a","tag":["x"]}', 'tag must be a string when present'],
    ];
    for (const [body, message] of cases) {
      const res = await read(await app.fetch(createRequest(body)));
      expect(res, body).toMatchObject({ status: 400, json: { error: ErrorCode.INVALID_PLANT, message } });
    }
    expect(await app.store.size()).toBe(0);
  });

  it('never echoes request data in a validation message', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest('{"id":"DROP-TABLE","name":{"x":"LEAK"}}')));
    expect(res.text).not.toMatch(/DROP|LEAK/);
  });

  it('treats __proto__ and constructor members as plain data, polluting nothing', async () => {
    const app = makeApp();
    const res = await read(
      await app.fetch(
        createRequest(
          '{"__proto__":{"name":"evil","tag":"x","polluted":1},"constructor":{"prototype":{"polluted":1}},"id":5,"name":"ok"}',
        ),
      ),
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"name":"ok"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A body whose only "name" sits under __proto__ has no name.
    const res2 = await read(await app.fetch(createRequest('{"__proto__":{"name":"evil"},"id":6}')));
    expect(res2.json).toEqual({ error: ErrorCode.INVALID_PLANT, message: 'name is required' });
  });

  it('replays 200 with the same Plant for the same id and every field the same, in any order, storing nothing new', async () => {
    const app = makeApp();
    const plant = fullPlant(8n);
    const first = await read(await app.fetch(createRequest(plantBody(plant))));
    expect(first.json).toStrictEqual(plantAnswer(plant));
    const reordered = Object.fromEntries([...Object.entries(plant).reverse(), ['extra', true]]);
    const again = await read(await app.fetch(createRequest(plantBody(reordered))));
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(await app.store.size()).toBe(1);
  });

  it('answers 400 40003 for the same id with another value of any one field, or an optional field added or dropped, and changes nothing', async () => {
    const app = makeApp();
    const full = fullPlant(9n);
    const bare = barePlant(10n, 1);
    await app.fetch(createRequest(plantBody(full)));
    await app.fetch(createRequest(plantBody(bare)));
    const others = VALUE_FIELDS.flatMap((field) => {
      const other = otherValue(field, full[field.name]);
      return [
        ...(other === undefined ? [] : [{ ...full, [field.name]: other }]),
        ...(field.required ? [] : [without(full, field), { ...bare, [field.name]: full[field.name] }]),
      ];
    });
    expect(others.length).toBeGreaterThanOrEqual(VALUE_FIELDS.length);
    for (const plant of others) {
      const body = plantBody(plant);
      const res = await read(await app.fetch(createRequest(body)));
      expect(res.json, body.slice(0, 200)).toEqual({ error: ErrorCode.ID_CONFLICT, message: CONFLICT_MESSAGE });
    }
    expect(await app.store.list()).toEqual([plantOf(full), plantOf(bare)]);
  });

  it('lets exactly one of 50 concurrent creates of one new id win; the others replay or conflict', async () => {
    const app = makeApp();
    const bodies = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0 ? '{"id":77,"name":"Same"}' : `{"id":77,"name":"Other ${i}"}`,
    );
    const answers = await Promise.all(bodies.map(async (body) => read(await app.fetch(createRequest(body)))));
    expect(await app.store.size()).toBe(1);
    const stored = (await app.store.get(77n))!;
    const winner = JSON.stringify({ name: stored.name });
    let wins = 0;
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 200) {
        expect(answer.text).toBe(winner);
        // Only bodies equal to the stored plant may see a 200.
        expect(bodies[i]).toContain(`"name":${JSON.stringify(stored.name)}`);
        wins++;
      } else {
        expect(answer.json).toEqual({
          error: ErrorCode.ID_CONFLICT,
          message: CONFLICT_MESSAGE,
        });
      }
    }
    expect(wins).toBeGreaterThanOrEqual(1);
  });

  it('answers every one of 50 concurrent equal creates with the same 200 and stores one plant', async () => {
    const app = makeApp();
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => read(await app.fetch(createRequest('{"id":5,"name":"Same","tag":"t"}')))),
    );
    expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(Array(50).fill('200 {"name":"Same","tag":"t"}'));
    expect(await app.store.size()).toBe(1);
  });
});

describe('handle and fetch', () => {
  it('gives the same answers through handle as through fetch', async () => {
    const cases: { path?: string; method?: string; headers: Record<string, string>; body?: string }[] = [
      { headers: { ...AUTH_JSON, 'x-request-id': 'r1' }, body: '{"id":9007199254740993,"name":"Fern","tag":"t"}' },
      { headers: { ...AUTH_JSON, 'x-request-id': 'r2' }, body: '{"id":9007199254740993,"name":"Ivy"}' },
      { headers: { ...AUTH_JSON, 'x-request-id': 'r3' }, body: '{"id":1}' },
      { headers: { ...AUTH_JSON, 'x-request-id': 'r4' }, body: '' },
      { headers: { 'content-type': 'application/json', 'x-request-id': 'r5' }, body: '{}' },
      { headers: { ...AUTH_JSON, 'x-request-id': 'r6' }, path: '/nope', body: '{}' },
      { headers: { ...AUTH_JSON, 'x-request-id': 'r7' }, method: 'PUT', body: '{}' },
    ];
    const viaFetch = makeApp();
    const viaHandle = makeApp();
    for (const c of cases) {
      const res = await viaFetch.fetch(
        new Request(URL_BASE + (c.path ?? '/plants'), {
          method: c.method ?? 'POST',
          headers: c.headers,
          body: c.body ?? null,
        }),
      );
      const answer = await viaHandle.handle(plainRequest({ ...c, body: c.body ?? null }).request);
      expect({ status: answer.status, headers: answer.headers, body: answer.body }).toEqual({
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: await res.text(),
      });
    }
    expect(await viaHandle.store.list()).toEqual(await viaFetch.store.list());
  });

  it('accepts a body that starts with a UTF-8 byte order mark (RFC 8259 §8.1 lets parsers ignore it)', async () => {
    const app = makeApp();
    const json = new TextEncoder().encode('{"id":1,"name":"a"}');
    const res = await app.fetch(createRequest(new Uint8Array([0xef, 0xbb, 0xbf, ...json])));
    expect(res.status).toBe(200);
  });
});

describe('routing', () => {
  it('answers 404 40401 for any other path, including a trailing slash and another case', async () => {
    const app = makeApp();
    for (const path of ['/', '/plant', '/plants/', '/Plants', '/plants/1', '/api/plants', '/%70lants']) {
      const res = await read(await app.fetch(createRequest('{"id":1,"name":"a"}', { path })));
      expect(res.status, path).toBe(404);
      expect(res.json.error).toBe(ErrorCode.NOT_FOUND);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    expect(await app.store.size()).toBe(0);
  });

  it('ignores the query string when matching the path', async () => {
    const app = makeApp();
    const res = await app.fetch(createRequest('{"id":1,"name":"a"}', { path: '/plants?x=1' }));
    expect(res.status).toBe(200);
  });

  // Clients send `/café` as `/caf%C3%A9` and `/a/../b` as `/b`: a base path kept as typed would make the
  // server's own printed URL answer 404.
  it('spells the base path the way clients send it: percent-encoded, dot segments resolved', async () => {
    const cases = [
      ['/café', '/caf%C3%A9'],
      ['/a/../b', '/b'],
      ['/v1/./x', '/v1/x'],
      ['//api', '//api'],
      ['/a/..', ''],
    ] as const;
    for (const [basePath, spelled] of cases) {
      const app = makeApp({ basePath });
      expect(app.basePath, basePath).toBe(spelled);
      // A client handed the path as typed sends it as a URL parser spells it.
      const request = createRequest('{"id":1,"name":"a"}', { path: `${basePath}/plants` });
      expect((await app.fetch(request)).status, basePath).toBe(200);
    }
  });

  it('serves /plants under the base path only', async () => {
    for (const basePath of ['/api', '/api/', 'api']) {
      const app = makeApp({ basePath });
      expect(app.basePath).toBe('/api');
      expect((await app.fetch(createRequest('{"id":1,"name":"a"}', { path: '/api/plants' }))).status, basePath).toBe(
        200,
      );
      const res = await read(await app.fetch(createRequest('{"id":1,"name":"a"}', { path: '/plants' })));
      expect(res.status).toBe(404);
      expect(res.json.message).toBe('no such path; plants are created by POST /api/plants');
    }
  });

  it('answers 405 40501 with Allow: POST for other methods on /plants', async () => {
    const app = makeApp();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await read(await app.fetch(new Request(`${URL_BASE}/plants`, { method, headers: AUTH_JSON })));
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.json.error).toBe(ErrorCode.METHOD_NOT_ALLOWED);
    }
    const head = await app.fetch(new Request(`${URL_BASE}/plants`, { method: 'HEAD' }));
    expect(head.status).toBe(405);
  });

  it('answers 405 before judging credentials', async () => {
    const app = makeApp();
    const res = await app.fetch(new Request(`${URL_BASE}/plants`));
    expect(res.status).toBe(405);
  });
});

describe('body limit', () => {
  it('answers 413 41301 by declared Content-Length without reading the body', async () => {
    const app = makeApp({ bodyLimit: 10 });
    const { request, reads } = plainRequest({
      headers: { ...AUTH_JSON, 'content-length': '11' },
      body: '{"id":1,"name":"a"}',
    });
    const res = await app.handle(request);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: ErrorCode.BODY_TOO_LARGE, message: 'body must be at most 10 bytes' });
    expect(reads).toEqual([]);
  });

  it('answers 413 when a huge Content-Length is declared', async () => {
    const app = makeApp();
    const { request, reads } = plainRequest({ headers: { ...AUTH_JSON, 'content-length': '99999999999999999999999' } });
    expect((await app.handle(request)).status).toBe(413);
    expect(reads).toEqual([]);
  });

  it('answers 413 while streaming a body with no declared length, cancelling the stream', async () => {
    const app = makeApp({ bodyLimit: 16 });
    let cancelled = false;
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new TextEncoder().encode('{"id":1,"name":"'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const req = new Request(`${URL_BASE}/plants`, {
      method: 'POST',
      headers: AUTH_JSON,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const res = await read(await app.fetch(req));
    expect(res.status).toBe(413);
    expect(res.json.error).toBe(ErrorCode.BODY_TOO_LARGE);
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(5);
  });

  // Cancelling one branch of a tee'd body settles only when the other branch is read or cancelled too.
  // MSW clones every request before its resolver runs and never reads the clone, so a reader that
  // awaited its cancel would hang on every over-limit body under the mocks instead of answering 413.
  it("answers 413 for a tee'd (cloned) request body over the limit while the clone stays unread", async () => {
    const app = makeApp({ bodyLimit: 16 });
    const original = createRequest(`{"id":1,"name":"${'x'.repeat(64)}"}`);
    const clone = original.clone();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), 2_000);
    });
    try {
      const res = await Promise.race([app.fetch(original), hung]);
      expect(res).not.toBe('hung');
      const answer = await read(res as Response);
      expect(answer.status).toBe(413);
      expect(answer.json.error).toBe(ErrorCode.BODY_TOO_LARGE);
    } finally {
      clearTimeout(timer);
    }
    // The clone's branch is untouched by the cancel: whoever holds it can still read it whole.
    expect(await clone.text()).toBe(`{"id":1,"name":"${'x'.repeat(64)}"}`);
  });

  it('reads a body that arrives in many chunks whole', async () => {
    const app = makeApp();
    const parts = ['{"id":90071992547409', '93,"na', 'me":"Fe', 'rn 🌿"}'];
    const bytes = new TextEncoder().encode(parts.join(''));
    // Split inside the 4-byte emoji too: decoding happens once, after reading.
    const cuts = [0, 7, 20, 31, bytes.length - 3, bytes.length];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i < cuts.length; i++) controller.enqueue(bytes.slice(cuts[i - 1], cuts[i]));
        controller.close();
      },
    });
    const req = new Request(`${URL_BASE}/plants`, {
      method: 'POST',
      headers: AUTH_JSON,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const res = await read(await app.fetch(req));
    expect(res.json).toEqual({ name: 'Fern 🌿' });
    expect(await app.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Fern 🌿' });
  });

  it('accepts a body of exactly the limit and refuses one byte more', async () => {
    const body = '{"id":1,"name":"a"}';
    const exact = makeApp({ bodyLimit: body.length });
    expect((await exact.fetch(createRequest(body))).status).toBe(200);
    const tight = makeApp({ bodyLimit: body.length - 1 });
    expect((await tight.fetch(createRequest(body))).status).toBe(413);
  });

  it('passes the configured limit, 1 MiB by default, to readBody', async () => {
    const app = makeApp();
    const { request, reads } = plainRequest({ headers: AUTH_JSON, body: '{"id":1,"name":"a"}' });
    await app.handle(request);
    expect(reads).toEqual([DEFAULT_BODY_LIMIT]);
    expect(DEFAULT_BODY_LIMIT).toBe(1_048_576);
  });
});

describe('request ids', () => {
  it('echoes a sane caller request id on success and on failure', async () => {
    const app = makeApp();
    const id = 'abc-DEF_123.4:5/6';
    expect(
      (await app.fetch(createRequest('{"id":1,"name":"a"}', { headers: { 'x-request-id': id } }))).headers.get(
        'x-request-id',
      ),
    ).toBe(id);
    expect((await app.fetch(createRequest('{', { headers: { 'x-request-id': id } }))).headers.get('x-request-id')).toBe(
      id,
    );
    expect(
      (await app.fetch(createRequest('{}', { path: '/x', headers: { 'x-request-id': 'a'.repeat(128) } }))).headers.get(
        'x-request-id',
      ),
    ).toBe('a'.repeat(128));
  });

  it('replaces an insane request id with a generated UUID', async () => {
    const app = makeApp();
    for (const bad of ['a'.repeat(129), 'has space', 'semi;colon', 'quote"', 'ünï']) {
      const got = (
        await app.fetch(createRequest('{"id":1,"name":"a"}', { headers: { 'x-request-id': bad } }))
      ).headers.get('x-request-id');
      expect(got).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    const { request } = plainRequest({ headers: { ...AUTH_JSON, 'x-request-id': '' }, body: '{"id":1,"name":"a"}' });
    expect((await app.handle(request)).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers with a generated id, never the token, when the caller sends its bearer token as the request id ("any" mode)', async () => {
    const app = makeApp({ tokens: 'any' });
    for (const [i, token] of ['caller-token.1', 'a.b-c_d/e'].entries()) {
      const res = await app.fetch(
        createRequest(`{"id":${i},"name":"a"}`, {
          headers: { authorization: `Bearer ${token}`, 'x-request-id': token },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
    // Another id is still echoed next to a token: only the credential itself is withheld.
    const plain = await app.fetch(
      createRequest('{"id":9,"name":"a"}', { headers: { authorization: 'Bearer tok', 'x-request-id': 'tok-1' } }),
    );
    expect(plain.headers.get('x-request-id')).toBe('tok-1');
  });

  it('answers with a generated id, never a token, when the request id is the presented or any configured token (list mode)', async () => {
    const app = makeApp({ tokens: [TOKEN, 'second-token'] });
    const cases: Array<[string, Record<string, string>, number]> = [
      // The accepted token the request presents.
      [TOKEN, {}, 200],
      // Another configured token, while the request authenticates with the first.
      ['second-token', {}, 200],
      // A configured token on a request that presents none.
      [TOKEN, { authorization: '' }, 401],
      // A refused token is still the caller's secret, whatever the scheme.
      ['typo-token', { authorization: 'Bearer typo-token' }, 401],
      ['dXNlcjpwYXNz', { authorization: 'Basic dXNlcjpwYXNz' }, 401],
    ];
    for (const [i, [id, headers, status]] of cases.entries()) {
      const res = await read(
        await app.fetch(createRequest(`{"id":${i},"name":"a"}`, { headers: { ...headers, 'x-request-id': id } })),
      );
      expect(res.status, id).toBe(status);
      expect(res.headers.get('x-request-id'), id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(res.text + JSON.stringify([...res.headers]), id).not.toContain(id);
    }
  });

  it('generates distinct ids for requests that bring none', async () => {
    const app = makeApp();
    const ids = new Set<string | null>();
    for (let i = 0; i < 20; i++) ids.add((await app.fetch(createRequest('{', {}))).headers.get('x-request-id'));
    expect(ids.size).toBe(20);
  });

  it('generates a UUID v4 with getRandomValues where randomUUID is missing (plain-http browser pages)', async () => {
    const app = makeApp();
    const original = globalThis.crypto.randomUUID;
    const getRandomValues = vi.spyOn(globalThis.crypto, 'getRandomValues');
    try {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true, writable: true });
      const got = (await app.fetch(createRequest('{'))).headers.get('x-request-id');
      expect(got).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(getRandomValues).toHaveBeenCalled();
    } finally {
      Object.defineProperty(globalThis.crypto, 'randomUUID', { value: original, configurable: true, writable: true });
      getRandomValues.mockRestore();
    }
  });
});

describe('faults', () => {
  function throwingStore(message: string): MemoryStore {
    const store = createMemoryStore();
    return { ...store, insert: async () => Promise.reject(new Error(message)) };
  }

  it('answers 500 50001 with a generic message when the store rejects, and passes the error to onError', async () => {
    const onError = vi.fn();
    const app = makeApp({ store: throwingStore('disk /var/lib/secret.db is full'), onError });
    const res = await read(
      await app.fetch(createRequest('{"id":1,"name":"a"}', { headers: { 'x-request-id': 'req-1' } })),
    );
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json.error).toBe(ErrorCode.INTERNAL_ERROR);
    expect(res.text).not.toMatch(/disk|secret|Error|at /);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(Error);
    expect((onError.mock.calls[0]![0] as Error).message).toBe('disk /var/lib/secret.db is full');
    expect(onError.mock.calls[0]![1]).toBe('req-1');
  });

  it('still answers 500 when onError itself throws', async () => {
    const app = makeApp({
      store: throwingStore('boom'),
      onError: () => {
        throw new Error('logger down');
      },
    });
    expect((await app.fetch(createRequest('{"id":1,"name":"a"}'))).status).toBe(500);
  });

  it('tells onInsert each insert outcome and its duration, an error included', async () => {
    const onInsert = vi.fn();
    const app = makeApp({ onInsert });
    expect((await app.fetch(createRequest('{"id":1,"name":"a"}'))).status).toBe(200);
    expect((await app.fetch(createRequest('{"id":1,"name":"a"}'))).status).toBe(200);
    expect((await app.fetch(createRequest('{"id":1,"name":"b"}'))).status).toBe(400);
    // A request refused before the store is asked is no insert.
    expect((await app.fetch(createRequest('{"id":"x","name":"a"}'))).status).toBe(400);
    const failing = makeApp({ store: throwingStore('boom'), onInsert });
    expect((await failing.fetch(createRequest('{"id":2,"name":"a"}'))).status).toBe(500);
    expect(onInsert.mock.calls.map(([outcome]) => outcome)).toEqual(['created', 'existing', 'existing', 'error']);
    for (const [, seconds] of onInsert.mock.calls) {
      expect(typeof seconds).toBe('number');
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThan(5);
    }
  });

  it('keeps the plant and the answer when onInsert throws, and refuses an onInsert that is no function', async () => {
    const app = makeApp({
      onInsert: () => {
        throw new Error('metrics down');
      },
    });
    expect((await app.fetch(createRequest('{"id":1,"name":"a"}'))).status).toBe(200);
    expect(await app.store.get(1n)).toEqual({ id: 1n, name: 'a' });
    const failing = makeApp({
      store: throwingStore('boom'),
      onInsert: () => {
        throw new Error('metrics down');
      },
      onError: (error) => expect((error as Error).message).toBe('boom'),
    });
    expect((await failing.fetch(createRequest('{"id":2,"name":"a"}'))).status).toBe(500);
    expect(() => makeApp({ onInsert: 'yes' as never })).toThrow(new TypeError('onInsert must be a function'));
  });

  it('answers 500 with a request id when reading the body fails', async () => {
    const app = makeApp();
    const { request } = plainRequest({ headers: AUTH_JSON });
    const res = await app.handle({ ...request, readBody: async () => Promise.reject(new Error('socket reset')) });
    expect(res.status).toBe(500);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).not.toContain('socket');
  });

  it('answers 500 when the header accessor throws before a request id exists', async () => {
    const onError = vi.fn();
    const app = makeApp({ onError });
    const res = await app.handle({
      method: 'POST',
      path: '/plants',
      header: () => {
        throw new Error('bad header');
      },
      readBody: async () => new Uint8Array(0),
    });
    expect(res.status).toBe(500);
    expect(onError.mock.calls[0]![1]).toBe(res.headers['x-request-id']);
  });
});

describe('what answers never contain', () => {
  it('never repeats request data, tokens or stack traces in any answer', async () => {
    const app = makeApp({ tokens: [TOKEN, 'MARKERTOKEN'], bodyLimit: 200 });
    const requests = [
      createRequest('{"id":"MARKER","name":"MARKER"}'),
      createRequest('{"id":1,"name":["MARKER"]}'),
      createRequest('{"MARKER":1}'),
      createRequest('MARKER'),
      createRequest('{"id":1,"name":"a","tag":{"MARKER":1}}'),
      createRequest('{"id":1,"name":"a"}', { headers: { authorization: 'Bearer MARKERTOKENX' } }),
      createRequest('{"id":1,"name":"a"}', { headers: { authorization: 'MARKER MARKERTOKEN' } }),
      createRequest('{"id":1,"name":"a"}', { headers: { 'content-type': 'text/MARKER' } }),
      createRequest('{"id":1,"name":"a"}', { path: '/MARKER' }),
      createRequest(`{"id":1,"name":"${'MARKER'.repeat(50)}"}`),
      new Request(`${URL_BASE}/plants?MARKER=1`, { method: 'DELETE', headers: { 'x-request-id': 'MARKER id' } }),
    ];
    for (const request of requests) {
      const res = await read(await app.fetch(request));
      expect(res.status).toBeGreaterThanOrEqual(400);
      const everything = res.text + JSON.stringify([...res.headers]);
      expect(everything).not.toContain('MARKER');
      // Stack frames look like `    at fn (file.js:1:2)`.
      expect(everything).not.toMatch(/\s{2,}at |\.[cm]?[jt]s\b|:\d+:\d+|Error:/);
    }
  });
});

describe('options', () => {
  it('refuses missing or empty tokens at creation', () => {
    // Through createPlantStoreApp itself: makeApp's options are all optional, so only here can the
    // compiler prove tokens required.
    // @ts-expect-error tokens is required
    expect(() => createPlantStoreApp({ tokens: undefined })).toThrow(TypeError);
    // @ts-expect-error tokens is required
    expect(() => createPlantStoreApp({})).toThrow(TypeError);
    expect(() => makeApp({ tokens: [] })).toThrow(TypeError);
    expect(() => makeApp({ tokens: [''] })).toThrow(TypeError);
    expect(() => makeApp({ tokens: ['has space'] })).toThrow(TypeError);
  });

  it('refuses a negative or fractional body limit and a base path with a host', () => {
    expect(() => makeApp({ bodyLimit: -1 })).toThrow(TypeError);
    expect(() => makeApp({ bodyLimit: 1.5 })).toThrow(TypeError);
    expect(() => makeApp({ basePath: 'http://host/api' })).toThrow(TypeError);
  });

  it('uses the given store and exposes it as app.store', async () => {
    const store = createMemoryStore();
    const app = makeApp({ store });
    expect(app.store).toBe(store);
    await app.fetch(createRequest('{"id":1,"name":"a"}'));
    expect(await store.size()).toBe(1);
  });

  it('calls the insert of a store that wraps a memory store, never the memory store behind it', async () => {
    // The app runs a memory store's insert synchronously; a wrapper with its own insert (here a
    // spread of a memory store) must still be called through that insert.
    const inner = createMemoryStore();
    const seen: bigint[] = [];
    const store: MemoryStore = {
      ...inner,
      insert: async (plant) => {
        seen.push(plant.id);
        return plant.id === 2n ? { created: false, existing: { id: 2n, name: 'kept' } } : inner.insert(plant);
      },
    };
    const app = makeApp({ store });
    expect((await read(await app.fetch(createRequest('{"id":1,"name":"a"}')))).json).toEqual({ name: 'a' });
    expect((await read(await app.fetch(createRequest('{"id":2,"name":"kept"}')))).json).toEqual({ name: 'kept' });
    expect(seen).toEqual([1n, 2n]);
    expect(await inner.list()).toEqual([{ id: 1n, name: 'a' }]);
    // A spread that keeps the memory store's own insert is that memory store.
    const same = makeApp({ store: { ...inner } });
    await same.fetch(createRequest('{"id":3,"name":"c"}'));
    expect(await inner.size()).toBe(2);
  });

  it('answers 500 through onError when its memory store is closed, as for any store fault', async () => {
    const store = createMemoryStore();
    await store.close();
    const onError = vi.fn();
    const app = makeApp({ store, onError });
    const res = await read(await app.fetch(createRequest('{"id":1,"name":"a"}')));
    expect(res.status).toBe(500);
    expect(res.json).toMatchObject({ error: ErrorCode.INTERNAL_ERROR });
    expect(onError).toHaveBeenCalledOnce();
    expect(String(onError.mock.calls[0]![0])).toContain('the plant store is closed');
  });

  it('never puts the token in a response', async () => {
    const app = makeApp();
    const res = await read(
      await app.fetch(createRequest('{"id":1,"name":"a"}', { headers: { authorization: `Bearer ${TOKEN}x` } })),
    );
    expect(res.text + JSON.stringify([...res.headers])).not.toContain(TOKEN);
  });
});
