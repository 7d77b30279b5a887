// What a client sends must never come back unescaped, in an answer or a log line, and a token
// must never reach the log. The server logs to a capture sink; hostile paths, request ids, headers
// and bodies carry marker strings so that any leak is found by a plain substring search.
import { randomBytes } from 'node:crypto';
import { createMemoryStore, type MemoryStore } from '@plant-store/core';
import { startPlantStoreServer, type PlantStoreServer } from '@plant-store/server';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { exchange, type RawAnswer } from '../support/raw-http.js';

const mark = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;
const TOKEN = mark('tk');
const BODY = mark('bm');
const HEADER = mark('hm');
const PATH = mark('pm');
const RID = mark('rm');
const FAULT = mark('fm');

const lines: string[] = [];
let server: PlantStoreServer;
let faulty: PlantStoreServer;

beforeAll(async () => {
  const sink = { write: (line: string) => lines.push(line) };
  server = await startPlantStoreServer({ port: 0, tokens: [TOKEN], log: sink });
  // A store whose failures carry hostile text: the 500 must not show it, the log must escape it.
  const memory = createMemoryStore();
  const broken: MemoryStore = {
    checkHealth: () => memory.checkHealth(),
    insert: () => Promise.reject(new Error(`disk says "\u001b[31m${FAULT}\r\n{"level":"forged"}</script>`)),
    get: (id) => memory.get(id),
    list: () => memory.list(),
    size: () => memory.size(),
    clear: () => memory.clear(),
    close: () => memory.close(),
  };
  faulty = await startPlantStoreServer({ port: 0, tokens: [TOKEN], log: sink, store: broken });
});

afterAll(async () => {
  await server?.close();
  await faulty?.close();
});

const answers: RawAnswer[] = [];

async function send(bytes: string | Buffer, port = server.port) {
  const { answers: got, closed } = await exchange(port, bytes, { count: 1 });
  answers.push(...got);
  expect(got.length > 0 || closed, 'answered or closed').toBe(true);
  return got[0];
}

const request = (target: string, headers: string[], body = `{"id":1,"name":"n","${BODY}":"${BODY}"}`) =>
  `${[
    `POST ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...headers,
  ].join('\r\n')}\r\n\r\n${body}`;

const auth = `Authorization: Bearer ${TOKEN}`;

test('answers hostile paths, request ids, headers and bodies without echoing them', async () => {
  const targets = [
    `/plants/${PATH}"quoted"`,
    `/${PATH}</script><script>alert(1)</script>`,
    `/${PATH}%1b[31mred%0d%0aSet-Cookie:%20x=1`,
    `/plants?access_token=${TOKEN}&${PATH}=%22`,
    `/${PATH}\\..\\..\\etc\\passwd`,
    `/${PATH}${'%2e'.repeat(300)}`,
  ];
  for (const target of targets) {
    for (const authorization of [auth, `Authorization: Bearer wrong-${HEADER}`, `Authorization: Basic ${TOKEN}`]) {
      await send(request(target, [authorization]));
    }
  }
  const requestIds = [
    `${RID}"quoted"`,
    `${RID}</script>`,
    `${RID}\u001b[31m`,
    `${RID} spaced`,
    `${RID}${'x'.repeat(200)}`,
    `${RID}\u00e9`,
    RID,
  ];
  for (const id of requestIds) {
    await send(request('/plants', [auth, `X-Request-Id: ${id}`]));
    await send(request('/nope', [`X-Request-Id: ${id}`]));
  }
  const headers = [
    `X-Note: ${HEADER}"</script>\u001b[0m`,
    `X-Fold: ${HEADER}\r\n continued`,
    `User-Agent: ${HEADER}\u007f`,
    `Cookie: session=${TOKEN}`,
    `Proxy-Authorization: Bearer ${TOKEN}`,
  ];
  for (const h of headers) await send(request('/plants', [auth, h]));
  const bodies = [
    `{"id":"${BODY}\u001b[31m","name":"x"}`,
    `{"id":1,"name":{"${BODY}":"</script>"}}`,
    `${BODY}\r\n{"level":"forged"}`,
    `{"id":2,"name":"ok","tag":"t","token":"${TOKEN}","${BODY}":"\\u001b"}`,
    `[${JSON.stringify(TOKEN)}]`,
  ];
  for (const b of bodies) await send(request('/plants', [auth], b));

  expect(answers.length).toBeGreaterThan(40);
  for (const answer of answers) {
    const headerText = Object.entries(answer.headers)
      .filter(([k]) => k !== 'x-request-id')
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
    for (const secret of [TOKEN, BODY, HEADER, PATH, RID, '</script>', '\u001b']) {
      expect(answer.body, `${answer.status} body`).not.toContain(secret);
      expect(headerText, `${answer.status} headers`).not.toContain(secret);
    }
    // The caller's request id comes back only when it is plain: letters, digits and - _ . : /
    expect(answer.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:/-]{1,128}$/);
  }
  expect(
    answers.filter((a) => a.headers['x-request-id'] === RID).length,
    'a sane request id is echoed',
  ).toBeGreaterThan(0);
});

test('answers a store fault with a plain 500 that says nothing of the fault', async () => {
  const answer = await send(request('/plants', [auth]), faulty.port);
  expect(answer?.status).toBe(500);
  expect(JSON.parse(answer!.body)).toMatchObject({ error: 50001 });
  for (const secret of [BODY, FAULT, 'disk', 'forged', '\u001b', 'Error']) expect(answer!.body).not.toContain(secret);
});

test('never answers or logs the token when a client sends it as its request id', async () => {
  // A token is token68, which the request-id filter lets through: without a guard it would be echoed in
  // X-Request-Id and written to the log's requestId field.
  const before = lines.length;
  const got = [
    await send(request('/plants', [auth, `X-Request-Id: ${TOKEN}`])),
    await send(request('/nope', [auth, `X-Request-Id: ${TOKEN}`])),
    await send(request('/plants', [`Authorization: Bearer wrong-${HEADER}`, `X-Request-Id: ${TOKEN}`])),
    await send(request('/plants', [`Authorization: Bearer wrong-${HEADER}`, `X-Request-Id: wrong-${HEADER}`])),
  ];
  expect(got.map((answer) => answer?.status)).toEqual([200, 404, 401, 401]);
  for (const answer of got) {
    expect(answer!.head + answer!.body).not.toContain(TOKEN);
    expect(answer!.head + answer!.body).not.toContain(HEADER);
    expect(answer!.headers['x-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  }
  const logged = lines.slice(before);
  expect(logged.length, 'each request was logged').toBe(got.length);
  for (const line of logged) {
    expect(line).not.toContain(TOKEN);
    expect(line).not.toContain(HEADER);
  }
});

test('writes every log line as one JSON object with no raw control character, no token and no header or body data', async () => {
  // Runs after the tests above, which filled the log.
  const text = lines.join('');
  expect(lines.length).toBeGreaterThan(40);
  expect(text.endsWith('\n')).toBe(true);
  const records = text.slice(0, -1).split('\n');
  expect(records.length, 'one record per write').toBe(lines.length);
  for (const line of records) {
    // C0 controls, DEL and C1 controls would let a client recolour a terminal or forge a line.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
    expect(line, line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(typeof record, line).toBe('object');
    expect(record.level, line).not.toBe('forged');
    for (const secret of [TOKEN, BODY, HEADER]) expect(line, line).not.toContain(secret);
    // A hostile path may be logged, but only inside the path field, JSON-escaped.
    const { path: _path, ...rest } = record;
    expect(JSON.stringify(rest), line).not.toContain(PATH);
    if (typeof record.requestId === 'string') expect(record.requestId).toMatch(/^[A-Za-z0-9._:/-]{1,128}$/);
  }
  expect(
    records.some((l) => l.includes(PATH)),
    'hostile paths were logged (escaped)',
  ).toBe(true);
  expect(
    records.some((l) => l.includes('"level":"error"') && l.includes(FAULT)),
    'the store fault was logged',
  ).toBe(true);
});
