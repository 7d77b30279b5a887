// The store behind a real PgBouncer (Debian's package), mostly in transaction mode, where one session's named
// statements meet another's on a shared server connection: prepared statements on, off and 'auto', and
// the statement timeout, which PgBouncer refuses as a start-up parameter, set per transaction instead.
// Each test starts its own PgBouncer, so it alone decides which server connections exist.
import { StoreUnavailableError } from '@plant-store/core';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type PoolMode, startPgBouncer, type TestPgBouncer } from '../../../test/support/pgbouncer.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { describeWithTools } from '../../../test/support/system-tools.js';
import { createPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

const opened: (PostgresStore | TestPgBouncer)[] = [];
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close();
});

async function bouncer(settings: Record<string, string> = {}, mode: PoolMode = 'transaction'): Promise<TestPgBouncer> {
  const started = await startPgBouncer(db.url, mode, settings);
  opened.push(started);
  return started;
}

async function open(url: string, table: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const store = await createPostgresStore({ connectionString: url, schema: db.schema, table, poolSize: 1, ...options });
  opened.push(store);
  return store;
}

/**
 * Two stores on one table, one connection each, taking turns: PgBouncer has one server connection, so
 * the second store's Parse of the statement name meets the first store's statement there (42P05).
 */
async function takeTurns(a: PostgresStore, b: PostgresStore, turns: number): Promise<PromiseSettledResult<unknown>[]> {
  const results: PromiseSettledResult<unknown>[] = [];
  for (let i = 0; i < turns; i++) {
    for (const [n, store] of [a, b].entries()) {
      results.push(
        await store.insert({ id: BigInt(i * 2 + n + 1), name: `turn ${i}` }).then(
          (value) => ({ status: 'fulfilled' as const, value }),
          (reason: unknown) => ({ status: 'rejected' as const, reason }),
        ),
      );
    }
  }
  return results;
}

describeWithTools(['pgbouncer'], 'behind PgBouncer', () => {
  it('with preparedStatements on, a named statement PgBouncer hands to another session is a 503 naming 42P05, never a 500', async () => {
    const { url } = await bouncer();
    const table = db.table();
    const a = await open(url, table, { preparedStatements: true });
    const b = await open(url, table, { preparedStatements: true });
    const results = await takeTurns(a, b, 3);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toMatch(/\((42P05|26000)\); a pooler in transaction mode .*'auto' or false$/);
    }
  }, 60_000);

  it('with preparedStatements on in session mode, where each session keeps its server connection, every insert commits', async () => {
    const { url } = await bouncer({}, 'session');
    const table = db.table();
    const a = await open(url, table, { preparedStatements: true });
    const b = await open(url, table, { preparedStatements: true });
    const results = await takeTurns(a, b, 3);
    expect(results).toEqual(Array(6).fill({ status: 'fulfilled', value: { created: true } }));
  }, 60_000);

  it("with preparedStatements 'auto' (the default), the store finds PgBouncer at start and every insert commits", async () => {
    const { url } = await bouncer();
    const table = db.table();
    const results = await takeTurns(await open(url, table), await open(url, table), 3);
    expect(results).toEqual(Array(6).fill({ status: 'fulfilled', value: { created: true } }));
  }, 60_000);

  it("with 'auto' behind a PgBouncer that ignores the statement timeout, the store drops the names at the first 42P05 and every insert commits", async () => {
    // PgBouncer then takes the start-up parameter (and drops it), so only the 42P05 tells the store.
    const { url } = await bouncer({ ignore_startup_parameters: 'statement_timeout' });
    const table = db.table();
    const results = await takeTurns(await open(url, table), await open(url, table), 3);
    expect(results).toEqual(Array(6).fill({ status: 'fulfilled', value: { created: true } }));
  }, 60_000);

  it('with preparedStatements off, a burst of 256 concurrent inserts through two stores commits every one', async () => {
    const { url } = await bouncer();
    const table = db.table();
    const stores = [
      await open(url, table, { preparedStatements: false, poolSize: 10 }),
      await open(url, table, { preparedStatements: false, poolSize: 10 }),
    ];
    const results = await Promise.all(
      Array.from({ length: 256 }, (_, i) => stores[i % 2]!.insert({ id: BigInt(i), name: `burst ${i}` })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(256);
  }, 60_000);

  it('applies the statement timeout in transaction mode (SET LOCAL per transaction): a locked table is a 503 for 57014, then the store serves again', async () => {
    const { url } = await bouncer();
    const table = db.table();
    const store = await open(url, table, { statementTimeout: 300 });
    await store.insert({ id: 1n, name: 'before' });
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${db.schema}"."${table}" IN ACCESS EXCLUSIVE MODE`);
      const error = await store.insert({ id: 2n, name: 'blocked' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      // The server's timeout (57014), not the driver's later one: the SET LOCAL reached the server.
      expect((error as Error).message).toMatch(/statement timeout/);
      expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe('57014');
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // Rolled back, not left in an aborted transaction on PgBouncer's server connection.
    expect(await store.insert({ id: 2n, name: 'after' })).toEqual({ created: true });
    const rows = await db.query<{ id: string }>(`SELECT id::text FROM "${db.schema}"."${table}" ORDER BY id`);
    expect(rows).toEqual([{ id: '1' }, { id: '2' }]);
  }, 60_000);
});

it("refuses a preparedStatements other than true, false or 'auto' before connecting", async () => {
  await expect(
    createPostgresStore({ connectionString: db.url, preparedStatements: 'yes' as unknown as boolean }),
  ).rejects.toThrow(new TypeError("preparedStatements must be true, false or 'auto'; got yes"));
});
