// The store when the network to PostgreSQL is cut without a word (bytes dropped both ways, no reset:
// the tests' TCP proxy blackholed): an insert answers StoreUnavailableError within the statement
// timeout, saying its outcome is unknown, and inserts work again by themselves once the path heals;
// a statement the network lost is given up as soon as the database can say it never got it.
import { StoreUnavailableError } from '@plant-store/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.mjs';
import { createPostgresStore } from '../src/index.js';

let db: TestDatabase;
let proxy: TcpProxy;
beforeAll(async () => {
  db = await openTestDatabase();
  const url = new URL(db.url);
  proxy = await startTcpProxy({ target: { host: url.hostname, port: Number(url.port) } });
});
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});

/** A store that reaches the database through the proxy, with one plant inserted while the path is whole. */
async function openThroughProxy(statementTimeout: number) {
  const url = new URL(db.url);
  url.port = String(proxy.port);
  const store = await createPostgresStore({
    connectionString: url.href,
    schema: db.schema,
    table: db.table(),
    statementTimeout,
  });
  expect(await store.insert({ id: 1n, name: 'before' })).toEqual({ created: true });
  return store;
}

it('answers StoreUnavailableError within the statement timeout while the path is cut, and inserts again once it heals', async () => {
  const store = await openThroughProxy(1_000);
  try {
    proxy.blackhole(true);
    const errors = await Promise.all(
      [2n, 3n, 4n].map((id) => store.insert({ id, name: 'cut' }).catch((error: unknown) => error)),
    );
    for (const error of errors) {
      expect(StoreUnavailableError.is(error), String(error)).toBe(true);
      expect((error as Error).message).toBe(
        `PostgreSQL at ${new URL(db.url).hostname}:${proxy.port} did not acknowledge the insert within the statement timeout (1 s), so whether it committed is unknown; a retry replays or creates it`,
      );
    }
    proxy.blackhole(false);
    const healed = Date.now();
    let result: unknown;
    while (Date.now() - healed < 5_000) {
      result = await store.insert({ id: 5n, name: 'after' }).catch((error: unknown) => error);
      if (!(result instanceof Error)) break;
    }
    expect(result).toEqual({ created: true });
    const rows = await db.query<{ id: string }>(`SELECT id::text AS id FROM ${store.table} ORDER BY id`);
    // 2 to 4 were never sent, or lost with the path: either way never acknowledged.
    expect(rows.map((row) => row.id).filter((id) => id === '1' || id === '5')).toEqual(['1', '5']);
  } finally {
    proxy.blackhole(false);
    await store.close();
  }
}, 30_000);

it('gives up a statement the network lost as soon as the database says its backend is idle, long before the statement timeout', async () => {
  const store = await openThroughProxy(60_000);
  try {
    // A moment's cut, as when a NAT or a firewall forgets the connection: the insert's bytes are lost.
    proxy.blackhole(true);
    const lost = store.insert({ id: 2n, name: 'lost' }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy.blackhole(false);
    const error = await lost;
    expect(StoreUnavailableError.is(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /whether it committed is unknown; a retry replays or creates it: .*the database never received the statement or finished it long ago, and no answer came \(the network lost it\)/,
    );
    expect(await store.insert({ id: 2n, name: 'lost' })).toEqual({ created: true });
  } finally {
    proxy.blackhole(false);
    await store.close();
  }
}, 90_000);
