// The JSON-line request log: useful fields, one line per request, and never a secret.
import { createServer } from 'node:http';
import { expect, it } from 'vitest';
import { createLogger } from '../src/internal/logger.js';
import { createRequestListener } from '../src/internal/request-listener.js';
import { createTransportAnswers } from '../src/internal/transport-errors.js';
import { RawConnection, TOKEN, createPlant, exchangeUntilClose, postHead, serve } from './helpers.js';

function collector(): {
  lines: () => Array<Record<string, unknown>>;
  /** The request lines only (the server also logs its start and stop). */
  requests: () => Array<Record<string, unknown>>;
  raw: () => string;
  write: (line: string) => void;
} {
  let text = '';
  return {
    write: (line) => {
      text += line;
    },
    raw: () => text,
    lines: () => parse(text),
    requests: () => parse(text).filter((line) => line['message'] === 'request'),
  };
}

function parse(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits (bounded, 5 s) until `done` holds; the assertions after it say what was expected. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

it('logs one JSON line per request with time, level, request id, method, path, status and duration', async () => {
  const log = collector();
  const server = await serve({ log });
  await createPlant(server, '{"id":1,"name":"Fern"}', { 'x-request-id': 'log-test-1' });
  const [line] = log.requests();
  expect(line).toMatchObject({
    level: 'info',
    message: 'request',
    requestId: 'log-test-1',
    method: 'POST',
    path: '/plants',
    status: 200,
  });
  expect(typeof line?.['durationMs']).toBe('number');
  expect(Number.isNaN(Date.parse(String(line?.['time'])))).toBe(false);
});

it('never logs the token, the Authorization header, the query string or the body', async () => {
  const log = collector();
  const server = await serve({ log });
  await fetch(`${server.url}/plants?access_token=query-secret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{"id":1,"name":"body-secret"}',
  });
  await createPlant(server, '{"id":2,"name":"x"}', { authorization: 'Bearer wrong-token-secret' });
  await createPlant(server, 'not json body-secret');
  const raw = log.raw();
  expect(log.requests()).toHaveLength(3);
  for (const secret of [TOKEN, 'wrong-token-secret', 'query-secret', 'body-secret', 'Bearer']) {
    expect(raw).not.toContain(secret);
  }
});

it('keeps a hostile path inside its JSON string, so it cannot forge a log line or field', async () => {
  const log = collector();
  const server = await serve({ log });
  const path = '/plants"},"level":"forged","x":{"';
  await exchangeUntilClose(server.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  const lines = log.requests();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 'info', path, status: 404, errorCode: 40401 });
});

it('logs a parser failure as a warning with its request id, and a client that left as aborted, never as an error', async () => {
  const log = collector();
  const server = await serve({ log });
  const { answers } = await exchangeUntilClose(server.port, 'NOT HTTP\r\n\r\n');
  const client = await RawConnection.open(server.port);
  await client.write(postHead(['Content-Length: 100']) + '{"id":');
  // Wait for the server to have the request before leaving, so it is really in flight.
  await createPlant(server, '{"id":5,"name":"sync"}');
  client.destroy();
  await until(() => log.lines().some((line) => line['status'] === 'aborted'));
  const lines = log.lines();
  expect(lines.find((line) => line['event'] === 'client-error')).toMatchObject({
    level: 'warn',
    status: 400,
    requestId: answers[0]?.headers['x-request-id'],
  });
  expect(lines.find((line) => line['status'] === 'aborted')).toMatchObject({ level: 'info', method: 'POST' });
  expect(lines.some((line) => line['level'] === 'error')).toBe(false);
});

it('logs an unexpected fault of the store as an error line without the request data, and answers 500', async () => {
  const log = collector();
  const { createMemoryStore } = await import('@plant-store/core');
  const store = { ...createMemoryStore(), insert: () => Promise.reject(new Error('disk on fire')) };
  const server = await serve({ log, store });
  const answer = await createPlant(server, '{"id":1,"name":"Fern"}', { 'x-request-id': 'fault-1' });
  expect(answer.status).toBe(500);
  expect(await answer.text()).not.toContain('disk on fire');
  expect(log.lines().find((line) => line['level'] === 'error')).toMatchObject({
    requestId: 'fault-1',
    error: 'Error: disk on fire',
  });
  expect(log.raw()).not.toContain('Fern');
});

it('answers the core 50001 and logs its request id when the app itself rejects (the last-resort 500)', async () => {
  const log = collector();
  const state = {
    closing: false,
    inFlight: 0,
    onIdle: () => {},
    logger: createLogger(log),
    metrics: undefined,
    answers: createTransportAnswers(''),
  };
  const failing = { handle: () => Promise.reject(new Error('boom')), basePath: '' };
  const server = createServer(createRequestListener(failing, state, false));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/plants`, { method: 'POST' });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: 50001,
      message: 'an unexpected error occurred; the request id identifies it in the server log',
    });
    const requestId = res.headers.get('x-request-id');
    await until(() => log.lines().length >= 2);
    expect(log.lines()).toEqual([
      expect.objectContaining({ level: 'error', event: 'unhandled', requestId, error: 'Error: boom' }),
      expect.objectContaining({ level: 'info', requestId, status: 500 }),
    ]);
  } finally {
    server.close();
  }
});

it('writes the request line with the keys, order and values pino gives the same fields', () => {
  const lines = [
    { requestId: 'r-1', method: 'POST', path: '/pl"an\\ts\n\u2028é', status: 400, durationMs: 1.25, errorCode: 40003 },
    {
      requestId: undefined,
      method: 'GET',
      path: '/plants',
      status: 'aborted' as const,
      durationMs: 0,
      errorCode: undefined,
    },
  ];
  for (const worker of [undefined, 3]) {
    for (const line of lines) {
      const direct = collector();
      const viaPino = collector();
      createLogger(direct, worker === undefined ? {} : { worker }).request(
        line.requestId,
        line.method,
        line.path,
        line.status,
        line.durationMs,
        line.errorCode,
      );
      createLogger(viaPino, worker === undefined ? {} : { worker }).info('request', { ...line });
      const [ours] = direct.lines();
      const [theirs] = viaPino.lines();
      expect(Number.isNaN(Date.parse(String(ours?.['time'])))).toBe(false);
      for (const parsed of [ours, theirs]) delete parsed?.['time'];
      expect(ours).toEqual(theirs);
      expect(Object.keys(ours ?? {})).toEqual(Object.keys(theirs ?? {}));
      expect(direct.raw().endsWith('\n')).toBe(true);
    }
  }
  const quiet = collector();
  createLogger(quiet, { level: 'warn' }).request('r-1', 'POST', '/plants', 200, 1, undefined);
  expect(quiet.raw()).toBe('');
});
