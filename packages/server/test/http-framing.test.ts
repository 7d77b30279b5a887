// The node:http adapter on a real socket: bodies in every framing, limits, pipelining, 100-continue
// and the JSON answers to requests the HTTP parser refuses.
import { expect, it } from 'vitest';
import { RawConnection, TOKEN, createPlant, exchangeUntilClose, postHead, postRaw, serve } from './helpers.js';

it('creates a plant from a chunked body sent in several writes', async () => {
  const server = await serve();
  const client = await RawConnection.open(server.port);
  await client.write(postHead(['Transfer-Encoding: chunked']));
  for (const part of ['{"id":1,', '"name":"Fern",', '"tag":"shade"}']) {
    await client.write(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
  }
  await client.write('0\r\n\r\n');
  const [answer] = await client.waitForAnswers(1);
  client.destroy();
  expect(answer?.status).toBe(200);
  expect(JSON.parse(answer?.body ?? '')).toEqual({ name: 'Fern', tag: 'shade' });
});

it('answers 413 to a declared Content-Length over the limit without waiting for the body, and closes', async () => {
  const server = await serve({ bodyLimit: 1024 });
  // Only the head is sent: the answer cannot depend on a body that never comes.
  const { answers, closed } = await exchangeUntilClose(server.port, postHead(['Content-Length: 5000000']));
  expect(answers[0]?.status).toBe(413);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 41301 });
  expect(answers[0]?.headers['connection']).toBe('close');
  expect(closed).toBe(true);
});

it('answers 413 and closes the connection when a chunked body passes the limit while streaming', async () => {
  const server = await serve({ bodyLimit: 1024 });
  const client = await RawConnection.open(server.port);
  await client.write(postHead(['Transfer-Encoding: chunked']));
  const chunk = 'x'.repeat(2048);
  await client.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  // The stream is left open: the server must not wait for its end.
  const [answer] = await client.waitForAnswers(1);
  const closed = await client.waitForClose();
  client.destroy();
  expect(answer?.status).toBe(413);
  expect(JSON.parse(answer?.body ?? '')).toMatchObject({ error: 41301 });
  expect(closed).toBe(true);
});

it('answers two pipelined requests sent in one write, in order, on one connection', async () => {
  const server = await serve();
  const { answers } = await exchangeUntilClose(
    server.port,
    postRaw('{"id":1,"name":"First"}') +
      postRaw('{"id":2,"name":"Second"}', ['X-Request-Id: second', 'Connection: close']),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect(answers.map((a) => JSON.parse(a.body))).toEqual([{ name: 'First' }, { name: 'Second' }]);
  expect(answers[1]?.headers['x-request-id']).toBe('second');
  expect(await server.store.size()).toBe(2);
});

it('keeps a connection alive across creates, so clients reuse it', async () => {
  const server = await serve();
  const client = await RawConnection.open(server.port);
  await client.write(postRaw('{"id":1,"name":"a"}'));
  await client.waitForAnswers(1);
  await client.write(postRaw('{"id":2,"name":"b"}'));
  const answers = await client.waitForAnswers(2);
  const closed = client.closed;
  client.destroy();
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  expect(answers[0]?.headers['connection']).toBe('keep-alive');
  expect(closed).toBe(false);
});

it('sends 100 Continue and then creates the plant when the request expects it and is acceptable', async () => {
  const server = await serve();
  const client = await RawConnection.open(server.port);
  const body = '{"id":1,"name":"Fern"}';
  await client.write(postHead([`Content-Length: ${body.length}`, 'Expect: 100-continue']));
  const askedForBody = await client.waitForText('HTTP/1.1 100 Continue\r\n\r\n');
  await client.write(body);
  const answers = await client.waitForAnswers(1);
  client.destroy();
  expect(askedForBody).toBe(true);
  expect(answers.map((a) => a.status)).toEqual([200]);
  expect(JSON.parse(answers[0]?.body ?? '')).toEqual({ name: 'Fern' });
});

it('refuses a request expecting 100-continue with a wrong token without asking for its body', async () => {
  const server = await serve();
  const head = postHead(['Content-Length: 22', 'Expect: 100-continue']).replace(TOKEN, 'wrong');
  const { answers, text } = await exchangeUntilClose(server.port, head);
  expect(text).not.toContain('100 Continue');
  expect(answers[0]?.status).toBe(401);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 40102 });
});

it('answers a request whose Expect is not 100-continue as if it had none (RFC 9110 §10.1.1)', async () => {
  const server = await serve();
  const { answers } = await exchangeUntilClose(
    server.port,
    postRaw('{"id":1,"name":"Fern"}', ['Expect: something-else']) +
      postRaw('{"id":2,"name":"Oak"}', ['Expect: something-else', 'Connection: close']).replace(TOKEN, 'wrong'),
  );
  // Node alone would answer a bare 417 without a body or a request id.
  expect(answers.map((a) => a.status)).toEqual([200, 401]);
  expect(JSON.parse(answers[0]?.body ?? '')).toEqual({ name: 'Fern' });
  expect(JSON.parse(answers[1]?.body ?? '')).toMatchObject({ error: 40102 });
  expect(answers[1]?.headers['x-request-id']).toBeTruthy();
  expect(await server.store.size()).toBe(1);
});

it('answers a CONNECT with 404 and the JSON Error body (40401), then closes', async () => {
  const server = await serve({ basePath: '/api' });
  const { answers, closed } = await exchangeUntilClose(
    server.port,
    'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
  );
  expect(answers[0]?.status).toBe(404);
  expect(answers[0]?.headers['content-type']).toBe('application/json');
  expect(answers[0]?.headers['x-request-id']).toBeTruthy();
  expect(answers[0]?.headers['connection']).toBe('close');
  expect(JSON.parse(answers[0]?.body ?? '')).toEqual({
    error: 40401,
    message: 'no such path; plants are created by POST /api/plants',
  });
  expect(closed).toBe(true);
});

it('answers 400 with a JSON Error body (40001) to bytes that are not HTTP', async () => {
  const server = await serve();
  const { answers, closed } = await exchangeUntilClose(server.port, 'HELLO THERE\r\n\r\n');
  expect(answers[0]?.status).toBe(400);
  expect(answers[0]?.headers['content-type']).toBe('application/json');
  expect(JSON.parse(answers[0]?.body ?? '')).toEqual({
    error: 40001,
    message: 'the request could not be parsed as HTTP/1.1',
  });
  expect(answers[0]?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(closed).toBe(true);
});

it('answers 400 (40001) to a request with both Content-Length and chunked framing (request smuggling)', async () => {
  const server = await serve();
  const { answers, closed } = await exchangeUntilClose(
    server.port,
    postHead(['Content-Length: 4', 'Transfer-Encoding: chunked']) + '0\r\n\r\n',
  );
  expect(answers[0]?.status).toBe(400);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 40001 });
  expect(closed).toBe(true);
});

it('answers 431 with a JSON Error body (43101) to headers over the size limit', async () => {
  const server = await serve();
  const { answers, closed } = await exchangeUntilClose(
    server.port,
    postHead([`X-Padding: ${'a'.repeat(20_000)}`, 'Content-Length: 2']) + '{}',
  );
  expect(answers[0]?.status).toBe(431);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 43101 });
  expect(closed).toBe(true);
});

it('answers 400 (40001) to an HTTP/1.1 request without a Host header', async () => {
  const server = await serve();
  const { answers } = await exchangeUntilClose(server.port, 'GET /plants HTTP/1.1\r\n\r\n');
  expect(answers[0]?.status).toBe(400);
  expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 40001 });
});

it('routes an absolute-form request target by its path', async () => {
  const server = await serve();
  const { answers } = await exchangeUntilClose(
    server.port,
    postRaw('{"id":1,"name":"a"}', ['Connection: close']).replace(
      'POST /plants',
      `POST http://127.0.0.1:${server.port}/plants?x=1`,
    ),
  );
  expect(answers[0]?.status).toBe(200);
});

it('echoes a sane X-Request-Id and replaces one that is not', async () => {
  const server = await serve();
  const sane = await createPlant(server, '{"id":1,"name":"a"}', { 'x-request-id': 'trace-42:a/b' });
  const insane = await createPlant(server, '{"id":2,"name":"b"}', { 'x-request-id': 'x'.repeat(200) });
  expect(sane.headers.get('x-request-id')).toBe('trace-42:a/b');
  expect(insane.headers.get('x-request-id')).not.toBe('x'.repeat(200));
  expect(insane.headers.get('x-request-id')).toBeTruthy();
});

it('answers a CORS preflight from an allowed origin with 204 and the allowed method', async () => {
  const server = await serve({ cors: ['https://app.example'] });
  const preflight = await fetch(`${server.url}/plants`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  expect(preflight.headers.get('content-length')).toBeNull();
  const created = await createPlant(server, '{"id":1,"name":"a"}', { origin: 'https://app.example' });
  expect(created.headers.get('access-control-allow-origin')).toBe('https://app.example');
});

it("takes the core's CORS options (origins and the preflight cache) as well as a bare list", async () => {
  const preflight = (url: string) =>
    fetch(`${url}/plants`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
  const full = await serve({ cors: { origins: ['https://app.example'], maxAge: 60 } });
  const answer = await preflight(full.url);
  expect(answer.status).toBe(204);
  expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(answer.headers.get('access-control-max-age')).toBe('60');
  const bare = await serve({ cors: ['https://app.example'] });
  expect((await preflight(bare.url)).headers.get('access-control-max-age')).toBe('600');
  const any = await serve({ cors: '*' });
  expect((await preflight(any.url)).headers.get('access-control-allow-origin')).toBe('https://app.example');
  // A bad maxAge is the core's TypeError, at start rather than at the first preflight.
  await expect(serve({ cors: { origins: '*', maxAge: -1 } })).rejects.toThrow(/maxAge/);
});

it('keeps serving after a client disconnects in the middle of a body', async () => {
  const server = await serve();
  const client = await RawConnection.open(server.port);
  await client.write(postHead(['Content-Length: 100']) + '{"id":1,');
  client.destroy();
  await client.waitForClose();
  const answer = await createPlant(server, '{"id":2,"name":"after"}');
  expect(answer.status).toBe(200);
  expect(await server.store.get(1n)).toBeUndefined();
});
