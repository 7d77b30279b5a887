// The tests' TCP proxy, on real sockets in front of an echo server: bytes pass unchanged and in order,
// latency is added each way, a blackhole drops bytes both ways while every connection stays open, the
// path heals (resetting a connection one side ended meanwhile), and a hook resets a connection at the
// chunk it chooses, either way.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.mjs';

let echo: Server;
let echoPort: number;
/** Every byte the echo server received, on any connection. */
let echoed = '';
/** The echo server's end of each connection, in the order it accepted them. */
const serverSockets: Socket[] = [];
beforeAll(async () => {
  echo = createServer((socket) => {
    serverSockets.push(socket);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      echoed += chunk.toString();
    });
    socket.pipe(socket);
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

const proxies: TcpProxy[] = [];
const proxy = async (delayMs?: number) => {
  const started = await startTcpProxy({ target: { host: '127.0.0.1', port: echoPort }, delayMs });
  proxies.push(started);
  return started;
};
afterAll(() => Promise.all(proxies.map((each) => each.close())));

/** A connection to the proxy that collects what comes back. */
async function client(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  let closed = false;
  let error: NodeJS.ErrnoException | undefined;
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', (caught: NodeJS.ErrnoException) => {
    error = caught;
  });
  return {
    socket,
    received: () => received,
    closed: () => closed,
    /** The socket's error, if it had one (ECONNRESET for a reset). */
    error: () => error,
    /** Resolves once `length` bytes in all have come back. */
    until: (length: number) =>
      new Promise<void>((resolve) => {
        const check = () => (received.length >= length ? resolve() : setTimeout(check, 2));
        check();
      }),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('passes bytes both ways unchanged and in order, 8 MB of them', async () => {
  const { port } = await proxy();
  const c = await client(port);
  const payload = Buffer.alloc(8 * 1024 * 1024);
  for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
  c.socket.write(payload);
  await c.until(payload.length);
  expect(c.received().equals(payload)).toBe(true);
  c.socket.destroy();
});

it('adds its delay each way, so a round trip takes twice the delay at least, and keeps the order when the delay drops', async () => {
  const slow = await proxy(20);
  const c = await client(slow.port);
  const sent = Date.now();
  c.socket.write('a');
  await c.until(1);
  const roundTrip = Date.now() - sent;
  expect(roundTrip).toBeGreaterThanOrEqual(40);
  // Bytes sent after the delay was lowered never overtake the ones before.
  c.socket.write('b');
  slow.setDelay(0);
  c.socket.write('c');
  await c.until(3);
  expect(c.received().toString()).toBe('abc');
  c.socket.destroy();
  expect(() => slow.setDelay(-1)).toThrow(RangeError);
});

it('drops every byte both ways while blackholed, with no close or reset, and passes them again once healed', async () => {
  const path = await proxy();
  const c = await client(path.port);
  c.socket.write('before');
  await c.until(6);
  path.blackhole(true);
  c.socket.write('lost');
  const other = await client(path.port);
  other.socket.write('lost too');
  await pause(300);
  expect(c.received().toString()).toBe('before');
  expect(other.received().length).toBe(0);
  expect(c.closed()).toBe(false);
  expect(other.closed()).toBe(false);
  path.blackhole(false);
  c.socket.write('after');
  await c.until(11);
  // What was dropped stays dropped: the echo never saw it.
  expect(c.received().toString()).toBe('beforeafter');
  const fresh = await client(path.port);
  fresh.socket.write('new');
  await fresh.until(3);
  expect(fresh.received().toString()).toBe('new');
  for (const each of [c, other, fresh]) each.socket.destroy();
});

it('resets, once healed, a connection whose server closed it during the cut, and no other', async () => {
  const path = await proxy();
  const closing = await client(path.port);
  closing.socket.write('hello');
  await closing.until(5);
  // The echo server's end of `closing`: echoed, so accepted, before the next connection is made.
  const ended = serverSockets.at(-1)!;
  const kept = await client(path.port);
  kept.socket.write('hello');
  await kept.until(5);
  path.blackhole(true);
  ended.destroy();
  await pause(300);
  // The close was lost with the path: the client still holds a connection the server has gone from.
  expect(closing.closed()).toBe(false);
  path.blackhole(false);
  await until('the client of the closed connection closed', closing.closed);
  expect(closing.error()?.code).toBe('ECONNRESET');
  kept.socket.write(' again');
  await kept.until(11);
  expect(kept.received().toString()).toBe('hello again');
  expect(kept.closed()).toBe(false);
  kept.socket.destroy();
});

/** Resolves once `done()` holds; polled every 2 ms, for at most 5 s. */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`);
    await pause(2);
  }
}

it('drops a chunk toward the server that the hook resets on, and resets the client: the server never gets it', async () => {
  const path = await proxy();
  const c = await client(path.port);
  c.socket.write('kept ');
  await c.until(5);
  path.intercept((chunk, direction) => (direction === 'to-server' && chunk.includes('request') ? 'reset' : 'pass'));
  c.socket.write('request');
  await until('the client closed', c.closed);
  expect(c.error()?.code).toBe('ECONNRESET');
  expect(c.received().toString()).toBe('kept ');
  expect(echoed).toContain('kept ');
  expect(echoed).not.toContain('request');
  path.intercept(undefined);
  const next = await client(path.port);
  next.socket.write('request again');
  await next.until(13);
  expect(next.received().toString()).toBe('request again');
  next.socket.destroy();
});

it('drops an answer that the hook resets on, and resets the client: the server got the request, the client never gets the answer', async () => {
  const path = await proxy(5);
  const c = await client(path.port);
  const seen: string[] = [];
  path.intercept((chunk, direction) => {
    seen.push(direction);
    return direction === 'to-client' && chunk.includes('answer') ? 'reset' : undefined;
  });
  c.socket.write('answer me');
  await until('the client closed', c.closed);
  expect(c.error()?.code).toBe('ECONNRESET');
  expect(c.received().length).toBe(0);
  expect(echoed).toContain('answer me');
  expect(seen).toEqual(['to-server', 'to-client']);
  path.intercept(undefined);
});

it('destroys every connection on close', async () => {
  const path = await startTcpProxy({ target: { host: '127.0.0.1', port: echoPort } });
  const c = await client(path.port);
  c.socket.write('x');
  await c.until(1);
  await path.close();
  await pause(50);
  expect(c.closed()).toBe(true);
  const refused = connect({ host: '127.0.0.1', port: path.port });
  const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
  expect(error.code).toBe('ECONNREFUSED');
});

it('refuses a negative delay', async () => {
  await expect(startTcpProxy({ target: { host: '127.0.0.1', port: echoPort }, delayMs: -1 })).rejects.toThrow(
    'delayMs must be 0 or more milliseconds; got -1',
  );
});
