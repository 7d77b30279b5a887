// The load generator's connections against the race behind issue 46: the server closes a kept-alive
// connection as idle just as a create goes out on it, and the create is reset ('socket hang up').
// The server (the built package, keep-alive 2 s) runs in a worker thread, so that this process can
// stall as a busy machine makes it stall: blocked until the server has closed the connection, then
// sending at once, before it has read the close.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { keepAliveAgent, plantAnswer, plantBody, sendCreate, TOKEN } from './traffic.js';

const SERVER = fileURLToPath(new URL('../../packages/server/dist/index.cjs', import.meta.url));

// Counts in `closed[0]` the connections the server has seen closed, whichever side closed them;
// 'cut' destroys every open one, as a server that hangs up on a connection it said it would keep.
const SERVER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const channels = require('node:diagnostics_channel');
const { startPlantStoreServer } = require(workerData.server);
const closed = new Int32Array(workerData.closed);
const open = new Set();
channels.subscribe('net.server.socket', ({ socket }) => {
  open.add(socket);
  socket.on('close', () => {
    open.delete(socket);
    Atomics.add(closed, 0, 1);
    Atomics.notify(closed, 0);
  });
});
startPlantStoreServer({
  port: 0,
  host: '127.0.0.1',
  tokens: [workerData.token],
  timeouts: { keepAliveTimeout: 2_000 },
}).then((server) => {
  parentPort.on('message', () => {
    for (const socket of open) socket.destroy();
  });
  parentPort.postMessage(new URL(server.url).origin);
});
`;

interface ThreadServer {
  readonly origin: string;
  /** How many connections the server has seen closed. */
  readonly closed: Int32Array;
  /** Has the server destroy every connection it holds. */
  cut(): void;
}

const threads: Worker[] = [];
afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.terminate()));
});

async function startServerThread(): Promise<ThreadServer> {
  const closed = new Int32Array(new SharedArrayBuffer(4));
  const thread = new Worker(SERVER_THREAD, {
    eval: true,
    workerData: { server: SERVER, token: TOKEN, closed: closed.buffer },
  });
  threads.push(thread);
  const origin = await new Promise<string>((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
  });
  return { origin, closed, cut: () => thread.postMessage('cut') };
}

/**
 * Blocks this process until the server has seen `count` connections closed, then 50 ms more for the
 * close to reach this side: what this process sends next goes out before it has noticed the close.
 */
function stallUntilClosed(server: ThreadServer, count: number): void {
  const deadline = Date.now() + 10_000;
  for (let seen = Atomics.load(server.closed, 0); seen < count; seen = Atomics.load(server.closed, 0)) {
    if (Date.now() > deadline) throw new Error(`the server saw ${seen} connections closed, not ${count}, within 10 s`);
    Atomics.wait(server.closed, 0, seen, 100);
  }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
}

const created = (id: bigint) => ({ status: 200, body: plantAnswer(id), retryAfter: undefined });

/** What `send` settled to, and how many requests it took: a create sent once is one. */
async function counted<T>(send: () => Promise<T>): Promise<{ outcome: T | Error; requests: number }> {
  let requests = 0;
  const count = ({ request }: { request: ClientRequest }) => {
    if (request.path === '/plants') requests++;
  };
  const listener = count as (message: unknown) => void;
  subscribe('http.client.request.start', listener);
  try {
    const outcome = await send().catch((error: Error) => error);
    return { outcome, requests };
  } finally {
    unsubscribe('http.client.request.start', listener);
  }
}

/**
 * One create answered on a kept-alive connection of a new server thread, then `meanwhile` (a pause, a
 * stall), then a second create on the same agent: what the second settled to, and its requests.
 */
async function secondCreate(meanwhile: (server: ThreadServer) => unknown) {
  const server = await startServerThread();
  const agent = keepAliveAgent();
  try {
    expect(await sendCreate(agent, server.origin, plantBody(1n))).toEqual(created(1n));
    await meanwhile(server);
    return await counted(() => sendCreate(agent, server.origin, plantBody(2n)));
  } finally {
    agent.destroy();
  }
}

it('drops an idle connection before the server may close it, so a create sent as the server closes idle ones goes on a new connection', async () => {
  const second = await secondCreate(async (server) => {
    // The server announced `Keep-Alive: timeout=2`: the agent keeps the connection 1 s, the server 2 s or more.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    stallUntilClosed(server, 1);
  });
  expect(second).toEqual({ outcome: created(2n), requests: 1 });
});

it('sends a create again on a new connection when this process was too late to drop the one the server closed as idle', async () => {
  // Blocked from the answer on, the agent's timer never runs: the connection is still in its pool
  // when the server closes it as idle, and the create is reset before the server read a byte of it.
  const second = await secondCreate((server) => stallUntilClosed(server, 1));
  expect(second).toEqual({ outcome: { ...created(2n), resent: true }, requests: 2 });
});

it('fails a create reset on a kept-alive connection that the server closed before the time it announced', async () => {
  const { outcome, requests } = await secondCreate((server) => {
    server.cut();
    stallUntilClosed(server, 1);
  });
  expect(outcome).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
  expect(requests).toBe(1);
});
