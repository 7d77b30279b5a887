// The tests' TCP proxy, on real sockets in front of an echo server: bytes pass unchanged and in order,
// latency is added each way, a blackhole drops bytes both ways while every connection stays open, and
// the path heals.
import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.mjs';

let echo: Server;
let echoPort: number;
beforeAll(async () => {
  echo = createServer((socket) => {
    socket.on('error', () => undefined);
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
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', () => undefined);
  return {
    socket,
    received: () => received,
    closed: () => closed,
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
