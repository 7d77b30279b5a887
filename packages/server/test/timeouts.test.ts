// Slow clients are cut off: tiny timeouts are set through the options, and the tests assert what
// the client sees (an answer, a closed socket), never how long it took.
import { expect, it } from 'vitest';
import { RawConnection, postHead, serve } from './helpers.js';

const tiny = { headersTimeout: 300, requestTimeout: 600, keepAliveTimeout: 300 };

it('answers 408 with a JSON Error body and closes when the headers never finish', async () => {
  const server = await serve({ timeouts: tiny });
  const client = await RawConnection.open(server.port);
  await client.write('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const closed = await client.waitForClose();
  const [answer] = client.answers();
  client.destroy();
  expect(closed).toBe(true);
  expect(answer?.status).toBe(408);
  expect(answer?.headers['content-type']).toBe('application/json');
  expect(JSON.parse(answer?.body ?? '')).toEqual({ error: 40801, message: 'the request was not received in time' });
});

it('answers 408 and closes when a body trickles in slower than the request timeout', async () => {
  const server = await serve({ timeouts: tiny });
  const client = await RawConnection.open(server.port);
  await client.write(postHead(['Content-Length: 1000']) + '{"id":1,');
  const closed = await client.waitForClose();
  const [answer] = client.answers();
  client.destroy();
  expect(closed).toBe(true);
  expect(answer?.status).toBe(408);
  expect(await server.store.size()).toBe(0);
});

it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
  const server = await serve({ timeouts: tiny });
  const client = await RawConnection.open(server.port);
  await client.write('GET /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const [answer] = await client.waitForAnswers(1);
  const closed = await client.waitForClose();
  client.destroy();
  expect(answer?.status).toBe(405);
  expect(answer?.headers['connection']).toBe('keep-alive');
  expect(closed).toBe(true);
});

it('refuses timeouts that are not positive numbers of milliseconds', async () => {
  await expect(serve({ timeouts: { headersTimeout: 0 } })).rejects.toThrow(/headersTimeout/);
  await expect(serve({ timeouts: { requestTimeout: Number.NaN } })).rejects.toThrow(/requestTimeout/);
});
