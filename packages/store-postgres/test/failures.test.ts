// When the database fails. A PostgreSQL server this file starts itself (whatever
// PLANT_STORE_TEST_DATABASE_URL says: the tests stop, kill and restart it) is stopped, SIGKILLed and made
// to time out under load: an insert then rejects with the core's StoreUnavailableError (the app's 503),
// never resolves for a plant that is not committed, and the store serves again by itself once the
// database is back. At start, the wait for the database is bounded and its message names host:port.
import { StoreUnavailableError } from '@plant-store/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../test/support/postgres.js';
import { createPostgresStore, PostgresStoreError, type PostgresStore } from '../src/index.js';

let server: EmbeddedDatabase;
beforeAll(async () => {
  server = await startEmbeddedPostgres();
});
afterAll(() => server?.close());

/** Whatever a test did to the server, the next one finds it running. */
async function running(): Promise<void> {
  if (server.pid() === undefined) await server.start();
}

let tables = 0;
const open = (options: { statementTimeout?: number; table?: string } = {}) =>
  createPostgresStore({ connectionString: server.url, table: `failures_${tables++}`, poolSize: 4, ...options });

/** What an insert came to, and whether it was sent while the database was down. */
interface Outcome {
  readonly id: bigint;
  readonly whileDown: boolean;
  /** When the insert was made (Date.now()). */
  readonly at: number;
  readonly result: 'created' | 'unavailable' | 'other';
  readonly error?: unknown;
}

/**
 * Eight callers inserting new plants one after another until stopped, each noting what every insert came
 * to. `down` is read when an insert starts: the test sets it while the database is stopped.
 */
function load(store: PostgresStore, state: { down: boolean }) {
  const outcomes: Outcome[] = [];
  let next = 1n;
  let stopped = false;
  const callers = Array.from({ length: 8 }, async () => {
    while (!stopped) {
      const id = next++;
      const whileDown = state.down;
      const at = Date.now();
      try {
        const result = await store.insert({ id, name: `plant ${id}` });
        outcomes.push({ id, whileDown, at, result: result.created ? 'created' : 'other', error: result });
      } catch (error) {
        outcomes.push({ id, whileDown, at, result: StoreUnavailableError.is(error) ? 'unavailable' : 'other', error });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  });
  return {
    outcomes,
    count: (result: Outcome['result']) => outcomes.filter((outcome) => outcome.result === result).length,
    stop: async () => {
      stopped = true;
      await Promise.all(callers);
    },
  };
}

/** Polls until `condition` resolves true, `ms` at most; resolves to the milliseconds it took. */
async function within(ms: number, condition: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the load through an outage made by `fail`, restarts the database, and checks every rule. */
async function outage(fail: () => Promise<void>): Promise<void> {
  await running();
  const store = await open();
  const state = { down: false };
  const traffic = load(store, state);
  try {
    await within(10_000, () => traffic.count('created') >= 100);
    await fail();
    state.down = true;
    await within(10_000, () => traffic.outcomes.filter((outcome) => outcome.whileDown).length >= 20);
    const health = await store.checkHealth().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(StoreUnavailableError.is(health), String(health)).toBe(true);
    expect((health as Error).message).toContain(`127.0.0.1:${server.port}`);

    state.down = false;
    await server.start();
    const back = Date.now();
    // Serving again within 5 s of the database accepting connections: a create made since succeeds,
    // and the health check passes.
    await within(5_000, () => traffic.outcomes.some((outcome) => outcome.at >= back && outcome.result === 'created'));
    await within(5_000, () =>
      store.checkHealth().then(
        () => true,
        () => false,
      ),
    );
  } finally {
    await traffic.stop();
  }

  // Nothing sent while the database was down was acknowledged; every failure was a StoreUnavailableError.
  expect(traffic.outcomes.filter((outcome) => outcome.whileDown && outcome.result !== 'unavailable')).toEqual([]);
  expect(traffic.outcomes.filter((outcome) => outcome.result === 'other')).toEqual([]);
  // Every acknowledged plant is in the table, and is answered as that plant afterwards.
  const acknowledged = traffic.outcomes.filter((outcome) => outcome.result === 'created').map((outcome) => outcome.id);
  const check = new pg.Client({ connectionString: server.url });
  await check.connect();
  try {
    const { rows } = await check.query(`SELECT count(*)::int AS n FROM ${store.table} WHERE id = ANY ($1::bigint[])`, [
      acknowledged.map(String),
    ]);
    expect(rows[0].n).toBe(acknowledged.length);
  } finally {
    await check.end();
  }
  for (const id of acknowledged.slice(-50)) {
    expect(await store.insert({ id, name: 'again' })).toEqual({
      created: false,
      existing: { id, name: `plant ${id}` },
    });
  }
  await store.close();
}

describe('PostgreSQL store: the database fails while serving', () => {
  it('answers StoreUnavailableError while the database is stopped, loses no acknowledged plant, and serves again once it is back', async () => {
    await outage(() => server.stop());
  });

  it('answers StoreUnavailableError when the whole database is SIGKILLed (postmaster and backends), and serves again after its crash recovery', async () => {
    await outage(() => server.kill());
  });

  it('answers StoreUnavailableError when a statement passes the statement timeout, and the id stays free', async () => {
    await running();
    const store = await open({ statementTimeout: 300 });
    const holder = new pg.Client({ connectionString: server.url });
    await holder.connect();
    try {
      // Another transaction inserted id 42 and has not committed: the store's insert waits for it.
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO ${store.table} (id, name) VALUES (42, 'undecided')`);
      const error = await store.insert({ id: 42n, name: 'Fern' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(StoreUnavailableError.is(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/did not finish the insert in time \(statement timeout\)/);
      await holder.query('ROLLBACK');
      expect(await store.insert({ id: 42n, name: 'Fern' })).toEqual({ created: true });
    } finally {
      await holder.end();
      await store.close();
    }
  });

  it('answers StoreUnavailableError, saying the outcome is unknown, when its connection is cut during an insert', async () => {
    await running();
    const store = await open();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query(`INSERT INTO ${store.table} (id, name) VALUES (43, 'undecided')`);
      const insert = store.insert({ id: 43n, name: 'Fern' }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const killer = new pg.Client({ connectionString: server.url });
      await killer.connect();
      try {
        let pids: number[] = [];
        await within(5_000, async () => {
          const { rows } = await killer.query(
            `SELECT pid FROM pg_stat_activity WHERE application_name = 'plant-store' AND wait_event_type = 'Lock'`,
          );
          pids = rows.map((row) => row.pid as number);
          return pids.length > 0;
        });
        await killer.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      } finally {
        await killer.end();
      }
      const error = await insert;
      expect(StoreUnavailableError.is(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/lost during the insert, so whether it committed is unknown/);
      await admin.query('ROLLBACK');
      // The broken connection was thrown away: the next insert gets a working one.
      expect(await store.insert({ id: 43n, name: 'Fern' })).toEqual({ created: true });
    } finally {
      await admin.end();
      await store.close();
    }
  });
});

describe('PostgreSQL store: the wait at start', () => {
  it('gives up after startTimeout on a port where nothing listens, naming host:port and never the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const error = await createPostgresStore({
      connectionString: `postgres://plants:secret-word@127.0.0.1:${port}/plants`,
      startTimeout: 1_500,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'unreachable', target: `127.0.0.1:${port}` });
    expect((error as Error).message).toMatch(
      new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port} did not accept a connection within 1500 ms: .*ECONNREFUSED`),
    );
    expect(JSON.stringify(error) + String((error as Error).stack)).not.toContain('secret-word');
    // It waited, and no longer than it was told (with room for a slow machine).
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(waited).toBeLessThan(6_500);
  });

  it('starts once the database comes up during the wait', async () => {
    await running();
    await server.stop();
    const store = open({ table: 'failures_late' });
    await new Promise((resolve) => setTimeout(resolve, 800));
    await server.start();
    const started = await store;
    try {
      expect(await started.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    } finally {
      await started.close();
    }
  });

  it('refuses at once when the database refuses the password, naming host:port and not the password', async () => {
    await running();
    const url = new URL(server.url);
    url.password = 'wrong-secret';
    const started = Date.now();
    const error = await createPostgresStore({ connectionString: url.href, startTimeout: 30_000 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'refused', target: `127.0.0.1:${server.port}` });
    expect((error as Error).message).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:\d+ refused the plant store: password authentication failed for user "postgres" \(28P01\)/,
    );
    expect((error as Error).message).not.toContain('wrong-secret');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
