// Hostile HTTP against the real node:http server on 127.0.0.1:0, written byte for byte on raw
// sockets (test/support/raw-http.ts) so that nothing fixes the framing up on the way. After every
// test the server must still create a plant and every plant it ever answered 200 for must replay
// intact.
import { startPlantStoreServer, type PlantStoreServer } from '@plant-store/server';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { RawConnection, exchange, type RawAnswer } from '../support/raw-http.js';
import { errorTable, expectWellFormed } from './spec-oracle.js';

const TOKEN = 'hardening-token';
let server: PlantStoreServer;
let port: number;

/** Every plant the server answered 200 for: its body and the Plant it answered. */
const ledger = new Map<bigint, { body: string; answer: string }>();
let nextId = 1_000_000n;
const freshId = () => nextId++;

beforeAll(async () => {
  server = await startPlantStoreServer({ port: 0, host: '127.0.0.1', tokens: [TOKEN] });
  port = server.port;
});

afterAll(async () => {
  await server?.close();
});

/** A well-formed POST /plants request with a Content-Length, as bytes. */
function postBytes(
  body: string | Uint8Array,
  opts: {
    token?: string | null;
    path?: string;
    contentType?: string | null;
    extraHeaders?: string[];
    close?: boolean;
  } = {},
): Buffer {
  const bodyBuf = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const lines = [`POST ${opts.path ?? '/plants'} HTTP/1.1`, 'Host: 127.0.0.1'];
  if (opts.token !== null) lines.push(`Authorization: Bearer ${opts.token ?? TOKEN}`);
  if (opts.contentType !== null) lines.push(`Content-Type: ${opts.contentType ?? 'application/json'}`);
  lines.push(`Content-Length: ${bodyBuf.length}`);
  if (opts.close !== false) lines.push('Connection: close');
  lines.push(...(opts.extraHeaders ?? []));
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bodyBuf]);
}

/** Records a 200 in the ledger; returns the answer. */
function remember(id: bigint, body: string, answer: RawAnswer | undefined): RawAnswer | undefined {
  if (answer?.status === 200) {
    const known = ledger.get(id);
    if (known) expect(answer.body, `replay of ${id}`).toBe(known.answer);
    else ledger.set(id, { body, answer: answer.body });
  }
  return answer;
}

/** A valid create over a fresh socket; returns the answer. */
async function create(id: bigint, name: string, extra: Partial<Parameters<typeof postBytes>[1]> = {}) {
  const body = `{"id":${id},"name":${JSON.stringify(name)}}`;
  const { answers } = await exchange(port, postBytes(body, extra));
  return remember(id, body, answers[0]);
}

/**
 * Errors the HTTP layer answers on its own (bad framing, timeouts, oversized headers) carry the
 * Error body too, with a code whose status in openapi.yaml's table is the status sent.
 */
function expectTransportError(answer: RawAnswer, statuses: number[]) {
  expect(statuses, `${answer.status} ${answer.body}`).toContain(answer.status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(
    errorTable.get(body.error as number),
    `code ${String(body.error)} goes with status ${answer.status} in openapi.yaml`,
  ).toBe(answer.status);
  expect(typeof body.message).toBe('string');
}

afterEach(async () => {
  // The server still works ...
  const id = freshId();
  const answer = await create(id, 'after-each');
  expect(answer?.status, 'a valid create after the group').toBe(200);
  // ... nothing it stored was lost or changed ...
  for (const [known, { body, answer: expected }] of ledger) {
    const stored = await server.store.get(known);
    expect(stored && { id: stored.id, name: stored.name, tag: stored.tag }, `stored ${known}`).toEqual({
      id: known,
      ...(JSON.parse(expected) as { name: string; tag?: string }),
    });
    const replay = (await exchange(port, postBytes(body))).answers[0];
    expect(replay?.status, `replay of ${known}`).toBe(200);
    expect(replay?.body).toBe(expected);
  }
  expect(await server.store.size()).toBe(ledger.size);
  // ... and no request reached Object.prototype.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
});

// ---- framing ---------------------------------------------------------------------------------

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
const base = [
  'POST /plants HTTP/1.1',
  'Host: 127.0.0.1',
  `Authorization: Bearer ${TOKEN}`,
  'Content-Type: application/json',
];

const malformed: Record<string, string> = {
  'a garbage request line': 'GARBAGE\r\n\r\n',
  'a request line with a bad version': 'POST /plants HTTP/1.x\r\nHost: 127.0.0.1\r\n\r\n',
  'a NUL in a header name': head([...base, 'X-B\u0000ad: 1', 'Content-Length: 2']) + '{}',
  'a NUL in a header value': head([...base, 'X-Bad: a\u0000b', 'Content-Length: 2']) + '{}',
  'a bare CR in a header value': head([...base, 'X-Bad: a\rb', 'Content-Length: 2']) + '{}',
  'a space before the colon': head([...base, 'Content-Length : 2']) + '{}',
  'a non-hex chunk size': head([...base, 'Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n0\r\n\r\n',
  'a chunk size over 64 bits':
    head([...base, 'Transfer-Encoding: chunked']) + 'fffffffffffffffffffff\r\n{}\r\n0\r\n\r\n',
  'a negative chunk size': head([...base, 'Transfer-Encoding: chunked']) + '-2\r\n{}\r\n0\r\n\r\n',
  'chunk data longer than its size': head([...base, 'Transfer-Encoding: chunked']) + '2\r\n{}}}\r\n0\r\n\r\n',
  'a non-numeric Content-Length': head([...base, 'Content-Length: 2x']) + '{}',
  'a negative Content-Length': head([...base, 'Content-Length: -1']) + '{}',
};

for (const [what, bytes] of Object.entries(malformed)) {
  test(`answers ${what} with a JSON 400 and closes the connection`, async () => {
    const { answers, closed } = await exchange(port, bytes, { count: 2 });
    expect(answers).toHaveLength(1);
    expectTransportError(answers[0]!, [400]);
    expect(closed, 'the connection is closed after a parse failure').toBe(true);
  });
}

test('refuses Content-Length with Transfer-Encoding and never runs the request smuggled in the body', async () => {
  const smuggledId = freshId();
  const smuggledBody = `{"id":${smuggledId},"name":"smuggled"}`;
  const smuggled = postBytes(smuggledBody).toString('latin1');
  const chunked = `0\r\n\r\n${smuggled}`;
  const bytes = head([...base, `Content-Length: ${chunked.length}`, 'Transfer-Encoding: chunked']) + chunked;
  const { answers, closed } = await exchange(port, bytes, { count: 2 });
  expect(answers).toHaveLength(1);
  expectTransportError(answers[0]!, [400]);
  expect(closed).toBe(true);
  expect(await server.store.get(smuggledId)).toBeUndefined();
});

test('refuses two different Content-Lengths and never runs the request hidden behind the shorter one', async () => {
  const smuggledId = freshId();
  const inner = postBytes(`{"id":${smuggledId},"name":"smuggled"}`).toString('latin1');
  const body = `{"id":${freshId()},"name":"outer"}`;
  const bytes =
    head([...base, `Content-Length: ${body.length}`, `Content-Length: ${body.length + inner.length}`]) + body + inner;
  const { answers, closed } = await exchange(port, bytes, { count: 2 });
  expect(answers).toHaveLength(1);
  expectTransportError(answers[0]!, [400]);
  expect(closed).toBe(true);
  expect(await server.store.get(smuggledId)).toBeUndefined();
});

test('refuses an unknown Transfer-Encoding in front of chunked without storing anything', async () => {
  const id = freshId();
  const body = `{"id":${id},"name":"te"}`;
  const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const bytes = head([...base, 'Transfer-Encoding: chunked, xchunked']) + chunked;
  const { answers } = await exchange(port, bytes, { count: 2 });
  expect(answers).toHaveLength(1);
  expectTransportError(answers[0]!, [400, 501]);
  expect(await server.store.get(id)).toBeUndefined();
});

test('answers a declared Content-Length over the limit with 413 before the body is sent', async () => {
  const client = await RawConnection.open(port);
  await client.write(head([...base, 'Content-Length: 99999999999']));
  await client.write('{"id":');
  const [answer] = await client.waitForAnswers(1, 5_000);
  expect(answer, 'an answer without the rest of the body').toBeDefined();
  const body = expectWellFormed(answer!);
  expect(answer!.status).toBe(413);
  expect(body.error).toBe(41301);
  client.destroy();
});

test('answers a chunked body that streams past the limit with 413 and stops reading it', async () => {
  const client = await RawConnection.open(port);
  await client.write(head([...base, 'Transfer-Encoding: chunked']));
  const chunk = `${(64 * 1024).toString(16)}\r\n${' '.repeat(64 * 1024)}\r\n`;
  // 1 MiB is the default limit: 20 chunks of 64 KiB pass it; stop writing once answered.
  for (let i = 0; i < 20 && client.answers().length === 0 && client.writable; i++) await client.write(chunk);
  const [answer] = await client.waitForAnswers(1, 5_000);
  expect(answer).toBeDefined();
  expect(answer!.status).toBe(413);
  expect(expectWellFormed(answer!).error).toBe(41301);
  expect(await client.waitForClose(5_000), 'the connection is closed, not drained').toBe(true);
});

test('answers headers over the size limit with a JSON 431 or closes the connection', async () => {
  const bytes = head([...base, `X-Big: ${'a'.repeat(64 * 1024)}`, 'Content-Length: 2']) + '{}';
  const { answers, closed } = await exchange(port, bytes, { count: 2 });
  if (answers.length > 0) {
    expect(answers).toHaveLength(1);
    expectTransportError(answers[0]!, [431, 413, 400]);
  }
  expect(closed).toBe(true);
});

// ---- bodies ----------------------------------------------------------------------------------

const deep: Record<string, () => { body: string; codes: number[] }> = {
  '[[[…]]] 100,000 deep': () => ({
    body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    codes: [40002, 40001, 41301],
  }),
  '{"a":{"a":…}} 100,000 deep': () => ({
    body: `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    codes: [40002, 40001, 41301],
  }),
  'an unclosed [[[… 200,000 deep': () => ({ body: '['.repeat(200_000), codes: [40001, 41301] }),
  'a valid plant with a 100,000 deep unknown field': () => ({
    body: `{"extra":${'['.repeat(100_000)}${']'.repeat(100_000)},"id":${freshId()},"name":"deep"}`,
    codes: [200, 40001, 41301],
  }),
};

for (const [what, make] of Object.entries(deep)) {
  test(`answers ${what} as a body with a JSON answer from the table, never a crash`, async () => {
    const { body, codes } = make();
    const { answers } = await exchange(port, postBytes(body), { ms: 10_000 });
    expect(answers).toHaveLength(1);
    const parsed = expectWellFormed(answers[0]!);
    expect(codes).toContain(answers[0]!.status === 200 ? 200 : parsed.error);
    if (answers[0]!.status === 200) {
      const id = BigInt(/"id":(\d+)/.exec(body)![1]!);
      remember(id, body, answers[0]);
    }
  });
}

test('ignores "__proto__" and "constructor.prototype" keys: nothing polluted, nothing echoed', async () => {
  const a = freshId();
  const b = freshId();
  const bodies = [
    `{"__proto__":{"isAdmin":true,"tag":"evil"},"id":${a},"name":"x"}`,
    `{"constructor":{"prototype":{"isAdmin":true,"tag":"evil"}},"id":${b},"name":"y"}`,
  ];
  for (const [i, body] of bodies.entries()) {
    const answer = remember(i === 0 ? a : b, body, (await exchange(port, postBytes(body))).answers[0]);
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer!.body)).toStrictEqual({ name: i === 0 ? 'x' : 'y' });
  }
  expect({ ...(await server.store.get(a)) }).toEqual({ id: a, name: 'x' });
  expect(Object.keys((await server.store.get(a))!).sort()).toEqual(['id', 'name']);
});

test('does not take a field from a "__proto__" member: a plant whose name is only there is a 40002', async () => {
  const id = freshId();
  const answer = (await exchange(port, postBytes(`{"__proto__":{"name":"inherited","id":1},"id":${id}}`))).answers[0];
  expect(expectWellFormed(answer!).error).toBe(40002);
  expect(await server.store.get(id)).toBeUndefined();
  // A later request missing its name is still refused: no default name leaked into any prototype.
  const later = (await exchange(port, postBytes(`{"id":${freshId()}}`))).answers[0];
  expect(expectWellFormed(later!).error).toBe(40002);
  expect(answer!.body).not.toContain('inherited');
});

// ---- media types -----------------------------------------------------------------------------

const mediaTypes: [string | null, 'accepted' | 41501][] = [
  ['application/json;charset=latin1', 41501],
  ['application/json; charset=iso-8859-1', 41501],
  ['application/jsonx', 41501],
  ['application/json-patch+json', 41501],
  ['text/json', 41501],
  ['text/plain', 41501],
  ['application/x-www-form-urlencoded', 41501],
  ['', 41501],
  [null, 41501],
  ['APPLICATION/JSON; CHARSET=UTF-8', 'accepted'],
  ['application/json', 'accepted'],
  ['Application/Json;charset=utf-8', 'accepted'],
];

for (const [type, expected] of mediaTypes) {
  test(`answers Content-Type ${type === null ? '(missing)' : JSON.stringify(type)} with ${expected === 'accepted' ? '200' : expected}`, async () => {
    const id = freshId();
    const body = `{"id":${id},"name":"media"}`;
    const answer = remember(id, body, (await exchange(port, postBytes(body, { contentType: type }))).answers[0]);
    const parsed = expectWellFormed(answer!);
    if (expected === 'accepted') expect(answer!.status).toBe(200);
    else {
      expect(parsed.error).toBe(expected);
      expect(await server.store.get(id)).toBeUndefined();
    }
  });
}

// ---- concurrency -----------------------------------------------------------------------------

test('stores exactly one plant when 100 sockets create one id at once; the others replay or conflict', async () => {
  const id = freshId();
  const bodies = [`{"id":${id},"name":"first"}`, `{"id":${id},"name":"second","tag":"t"}`];
  const sizeBefore = await server.store.size();
  const clients = await Promise.all(Array.from({ length: 100 }, () => RawConnection.open(port)));
  await Promise.all(clients.map((c, i) => c.write(postBytes(bodies[i % 2]!))));
  const answers = await Promise.all(clients.map((c) => c.waitForAnswers(1, 10_000).then((a) => a[0])));
  for (const c of clients) c.destroy();

  const stored = await server.store.get(id);
  expect(stored).toBeDefined();
  const winner = stored!.tag === undefined ? 0 : 1;
  expect(await server.store.size()).toBe(sizeBefore + 1);
  answers.forEach((answer, i) => {
    expect(answer, `answer ${i}`).toBeDefined();
    const parsed = expectWellFormed(answer!);
    if (i % 2 === winner) {
      expect(answer!.status, `same body as the winner, answer ${i}`).toBe(200);
      expect(parsed).toStrictEqual(winner === 0 ? { name: 'first' } : { name: 'second', tag: 't' });
    } else {
      expect(parsed.error, `different body from the winner, answer ${i}`).toBe(40003);
    }
  });
  remember(id, bodies[winner]!, answers[winner]);
});

// ---- slow clients ----------------------------------------------------------------------------

/**
 * Dribbles `nextByte(i)` to a slow client every 100 ms, 100 times at most (10 s, five times the
 * limit), until the server answers or closes it; at the fourth step another client creates plant
 * `fastId`, which must get its 200. Resolves whether that happened while the slow one was connected.
 */
async function dribbleWhileServingAnother(
  port: number,
  slow: RawConnection,
  nextByte: (i: number) => string,
  fastId: number,
): Promise<boolean> {
  let servedWhileSlowConnected = false;
  for (let i = 0; i < 100 && slow.writable && slow.answers().length === 0; i++) {
    await slow.write(nextByte(i));
    if (i === 3) {
      const { answers } = await exchange(port, postBytes(`{"id":${fastId},"name":"fast"}`));
      expect(answers[0]?.status, 'another client is served meanwhile').toBe(200);
      servedWhileSlowConnected = slow.writable;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return servedWhileSlowConnected;
}

/**
 * Runs `body` against a server of its own with short timeouts (1 s for headers, 2 s for a request),
 * so the timeout tests take seconds and never touch the shared server; closed afterwards.
 */
async function withShortTimeouts(
  keepAliveTimeout: number,
  body: (slowServer: PlantStoreServer) => Promise<void>,
): Promise<void> {
  const slowServer = await startPlantStoreServer({
    port: 0,
    tokens: [TOKEN],
    timeouts: { headersTimeout: 1_000, requestTimeout: 2_000, keepAliveTimeout },
  });
  try {
    await body(slowServer);
  } finally {
    await slowServer.close();
  }
}

test('cuts off a client that sends its headers too slowly while serving others', async () => {
  await withShortTimeouts(1_000, async (slowServer) => {
    const slow = await RawConnection.open(slowServer.port);
    await slow.write('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const servedWhileSlowConnected = await dribbleWhileServingAnother(
      slowServer.port,
      slow,
      (i) => (i % 20 === 19 ? '\r\n' : 'x'),
      1,
    );
    expect(servedWhileSlowConnected, 'the fast client was answered while the slow one was connected').toBe(true);
    expect(await slow.waitForClose(5_000), 'the slow client is cut off').toBe(true);
    const answers = slow.answers();
    expect(answers, 'a 408 before the close').toHaveLength(1);
    expectTransportError(answers[0]!, [408]);
    slow.destroy();
  });
});

test('cuts off a client that sends its body too slowly while serving others', async () => {
  await withShortTimeouts(1_000, async (slowServer) => {
    const slow = await RawConnection.open(slowServer.port);
    await slow.write(head([...base, 'Content-Length: 1000']));
    const servedWhileSlowConnected = await dribbleWhileServingAnother(slowServer.port, slow, () => ' ', 2);
    expect(servedWhileSlowConnected, 'the fast client was answered while the slow one was connected').toBe(true);
    expect(await slow.waitForClose(5_000), 'the slow client is cut off').toBe(true);
    const answers = slow.answers();
    expect(answers, 'one 408 before the close, and nothing after it').toHaveLength(1);
    expectTransportError(answers[0]!, [408]);
    expect(slow.leftover, 'no bytes after the 408').toBe('');
    expect(await slowServer.store.size()).toBe(1);
    slow.destroy();
  });
});

test('closes an idle keep-alive connection after its timeout and keeps serving new ones', async () => {
  await withShortTimeouts(500, async (slowServer) => {
    const idle = await RawConnection.open(slowServer.port);
    await idle.write(postBytes(`{"id":3,"name":"idle"}`, { close: false }));
    expect((await idle.waitForAnswers(1, 5_000))[0]?.status).toBe(200);
    expect(await idle.waitForClose(5_000), 'the idle socket is closed').toBe(true);
    const { answers } = await exchange(slowServer.port, postBytes(`{"id":3,"name":"idle"}`));
    expect(answers[0]?.status).toBe(200);
  });
});

// ---- the body limit, to the byte -------------------------------------------------------------

test('accepts a body of exactly the limit and refuses one byte more, by Content-Length and chunked', async () => {
  const limited = await startPlantStoreServer({ port: 0, tokens: [TOKEN], bodyLimit: 64 });
  try {
    const padded = (id: number, size: number) => {
      const body = `{"id":${id},"name":"limit"}`;
      return body + ' '.repeat(size - body.length);
    };
    const chunked = (body: string) =>
      head([...base, 'Transfer-Encoding: chunked', 'Connection: close']) +
      `${(10).toString(16)}\r\n${body.slice(0, 10)}\r\n${(body.length - 10).toString(16)}\r\n${body.slice(10)}\r\n0\r\n\r\n`;
    const cases: [string, string, number][] = [
      ['64 bytes by Content-Length', postBytes(padded(1, 64)).toString('latin1'), 200],
      ['65 bytes by Content-Length', postBytes(padded(2, 65)).toString('latin1'), 413],
      ['64 bytes chunked', chunked(padded(3, 64)), 200],
      ['65 bytes chunked', chunked(padded(4, 65)), 413],
    ];
    for (const [what, bytes, status] of cases) {
      const { answers } = await exchange(limited.port, bytes);
      expect(answers[0]?.status, what).toBe(status);
      expectWellFormed(answers[0]!);
    }
    expect(await limited.store.size()).toBe(2);
  } finally {
    await limited.close();
  }
});

test('answers Authorization headers with odd bytes, huge tokens and stray whitespace with 401, never a fault', async () => {
  const values = [
    'Bearer t\u00f6ken',
    `Bearer ${'x'.repeat(8_000)}`,
    'Bearer ',
    'Bearer\t\thardening-token',
    'Bearer hardening-token hardening-token',
    'Bearer hardening-tokeN',
    'Bearer hardening-token\u00ff',
    '\u00ff\u00fe',
  ];
  for (const value of values) {
    const id = freshId();
    const bytes = Buffer.concat([
      Buffer.from(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: ${value}\r\nContent-Type: application/json\r\n`,
        'latin1',
      ),
      postBytes(`{"id":${id},"name":"a"}`, { token: null, contentType: null }).subarray(
        Buffer.from('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n').length,
      ),
    ]);
    const { answers } = await exchange(port, bytes);
    const parsed = expectWellFormed(answers[0]!);
    expect([40101, 40102], JSON.stringify(value.slice(0, 40))).toContain(parsed.error);
    expect(await server.store.get(id)).toBeUndefined();
  }
});
