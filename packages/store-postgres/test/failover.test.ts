// The store on a host list, against a real primary and a real streaming standby: it picks the server
// that qualifies under target_session_attrs whatever the order, skips a server that is down, refuses to
// start when none qualifies, and follows a failover by itself (the primary SIGKILLed, the standby
// promoted): StoreUnavailableError until a server accepts writes, then inserts again.
import { StoreUnavailableError } from '@plant-store/core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../../test/support/postgres.js';
import { type ReplicatedDatabase, startReplicatedPostgres } from '../../../test/support/replication.js';
import { createPostgresStore, PostgresStoreError, type PostgresStore } from '../src/index.js';

let db: ReplicatedDatabase;
beforeAll(async () => {
  db = await startReplicatedPostgres({ synchronous: false });
}, 180_000);
afterAll(() => db?.close());

const opened: PostgresStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

const password = () => new URL(db.primary.url).password;
/** A URL listing `ports` on 127.0.0.1 in that order. */
const listing = (ports: number[], parameters: string) =>
  `postgres://postgres:${password()}@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?${parameters}`;

async function open(connectionString: string, table: string, startTimeout = 10_000): Promise<PostgresStore> {
  const store = await createPostgresStore({ connectionString, table, startTimeout });
  opened.push(store);
  return store;
}

const onPrimary = (sql: string) => db.queryPrimary(sql);

it('writes to the primary when the standby is listed first, with read-write and with primary', async () => {
  for (const [attrs, table] of [
    ['read-write', 'standby_first_rw'],
    ['primary', 'standby_first_primary'],
  ] as const) {
    const store = await open(
      listing([db.standby.port, db.primary.port], `sslmode=disable&target_session_attrs=${attrs}`),
      table,
    );
    expect(store.target).toBe(`127.0.0.1:${db.standby.port},127.0.0.1:${db.primary.port}`);
    expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    await store.checkHealth();
    expect(await onPrimary(`SELECT name FROM public.${table}`)).toEqual([{ name: 'Fern' }]);
  }
});

it('skips a listed server that is down, as libpq does (sslmode left at prefer, which the server without TLS turns to plain)', async () => {
  const nobody = await freePort();
  const store = await open(listing([nobody, db.primary.port], 'target_session_attrs=read-write'), 'skip_down');
  expect(await store.insert({ id: 2n, name: 'Moss' })).toEqual({ created: true });
  expect(await onPrimary('SELECT name FROM public.skip_down')).toEqual([{ name: 'Moss' }]);
});

it('with target_session_attrs=any takes the first server that answers, and a write there is a StoreUnavailableError (25006)', async () => {
  // The table must exist for the standby to be asked: the primary makes it, the standby replays it.
  await open(listing([db.primary.port], 'sslmode=disable'), 'any_first');
  await waitForStandbyTable('any_first');
  const store = await open(
    listing([db.standby.port, db.primary.port], 'sslmode=disable&target_session_attrs=any'),
    'any_first',
  );
  const error = await store.insert({ id: 3n, name: 'Ivy' }).catch((caught: unknown) => caught);
  expect(StoreUnavailableError.is(error), String(error)).toBe(true);
  expect(String((error as Error).message)).toMatch(/25006|read-only/);
});

it('refuses to start when no listed server qualifies, naming each and why', async () => {
  const nobody = await freePort();
  const error = await createPostgresStore({
    connectionString: listing([nobody, db.standby.port], 'sslmode=disable&target_session_attrs=read-write'),
    table: 'none_qualifies',
    startTimeout: 1_000,
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PostgresStoreError);
  expect((error as PostgresStoreError).code).toBe('unreachable');
  expect((error as Error).message).toContain(
    `no PostgreSQL server of 127.0.0.1:${nobody},127.0.0.1:${db.standby.port} qualifies as read-write (target_session_attrs): 127.0.0.1:${nobody}: `,
  );
  expect((error as Error).message).toContain(`127.0.0.1:${db.standby.port}: a standby (in recovery) (25006)`);
});

it('moves off a primary that turns read-only: StoreUnavailableError (25006) while none takes writes, inserts again once it does', async () => {
  const store = await open(db.hostListUrl('sslmode=disable&target_session_attrs=read-write'), 'turns_read_only');
  expect(await store.insert({ id: 1n, name: 'writable' })).toEqual({ created: true });
  await onPrimary('ALTER SYSTEM SET default_transaction_read_only = on');
  await onPrimary('SELECT pg_reload_conf()');
  try {
    // The reload reaches every session soon after, not at once.
    let refused: unknown;
    const deadline = Date.now() + 10_000;
    for (let id = 2n; Date.now() < deadline; id++) {
      refused = await store.insert({ id, name: 'read-only' }).catch((error: unknown) => error);
      if (refused instanceof Error) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(StoreUnavailableError.is(refused), String(refused)).toBe(true);
    // Asked again, no server qualifies: the primary is read-only and the other a standby.
    const next = await store.insert({ id: 100n, name: 'read-only' }).catch((error: unknown) => error);
    expect(StoreUnavailableError.is(next), String(next)).toBe(true);
    expect((next as Error).message).toMatch(/read-only \(transaction_read_only is on\) \(25006\)/);
  } finally {
    await onPrimary('ALTER SYSTEM RESET default_transaction_read_only');
    await onPrimary('SELECT pg_reload_conf()');
  }
  let inserted: unknown;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    inserted = await store.insert({ id: 200n, name: 'writable again' }).catch((error: unknown) => error);
    if (!(inserted instanceof Error)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(inserted).toEqual({ created: true });
});

it('refuses to start at once on a wrong password, a fault waiting cannot cure, whichever server of the list says it', async () => {
  const nobody = await freePort();
  const started = Date.now();
  const error = await createPostgresStore({
    connectionString: `postgres://postgres:wrong@127.0.0.1:${nobody},127.0.0.1:${db.primary.port}/postgres?sslmode=disable&target_session_attrs=read-write`,
    table: 'wrong_password',
    startTimeout: 30_000,
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PostgresStoreError);
  expect((error as PostgresStoreError).code).toBe('refused');
  expect((error as Error).message).toMatch(/password authentication failed/);
  // Well before the start-up wait: the refusal is not retried.
  expect(Date.now() - started).toBeLessThan(30_000);
});

// Last: it ends the primary.
it('follows a failover by itself: StoreUnavailableError while no server accepts writes, inserts again once the standby is promoted', async () => {
  const store = await open(db.hostListUrl('sslmode=disable&target_session_attrs=read-write'), 'follows_failover');
  expect(await store.insert({ id: 10n, name: 'before' })).toEqual({ created: true });
  await waitForStandbyTable('follows_failover');
  await db.primary.kill();
  const whileDown = [];
  for (let id = 11n; id < 16n; id++) whileDown.push(await store.insert({ id, name: 'down' }).catch((e: unknown) => e));
  expect(whileDown.filter((each) => !StoreUnavailableError.is(each)).map(String)).toEqual([]);
  const health = await store.checkHealth().catch((e: unknown) => e);
  expect(StoreUnavailableError.is(health), String(health)).toBe(true);
  await db.promote();
  const promoted = Date.now();
  let inserted: unknown;
  while (Date.now() - promoted < 5_000) {
    inserted = await store.insert({ id: 20n, name: 'after' }).catch((e: unknown) => e);
    if (!(inserted instanceof Error)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(inserted).toEqual({ created: true });
  await store.checkHealth();
  expect(await db.queryStandby('SELECT id::text AS id, name FROM public.follows_failover ORDER BY id')).toEqual([
    { id: '10', name: 'before' },
    { id: '20', name: 'after' },
  ]);
}, 60_000);

async function waitForStandbyTable(table: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await db.queryStandby<{ found: boolean }>(
      `SELECT to_regclass('public.${table}') IS NOT NULL AS found`,
    );
    if (rows[0]?.found) return;
    if (Date.now() > deadline) throw new Error(`the standby did not replay the table ${table} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
