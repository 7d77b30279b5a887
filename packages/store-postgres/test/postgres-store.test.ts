// The PostgreSQL store beyond the conformance suite: group commit, the rows it leaves in the table (exact
// ids, readable strings, NULL for no tag), rows another server committed, a pool the caller owns, close,
// and its options.
import { StoreUnavailableError } from '@plant-store/core';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import {
  createPostgresStore,
  PostgresStoreError,
  type PostgresStore,
  type PostgresStoreOptions,
} from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());

const opened: PostgresStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** A store on a new table of the test's schema, closed after the test. */
async function openStore(options: PostgresStoreOptions = {}): Promise<PostgresStore & { name: string }> {
  const name = options.table ?? db.table();
  const store = await createPostgresStore({ connectionString: db.url, schema: db.schema, ...options, table: name });
  opened.push(store);
  return Object.assign(store, { name });
}

const rowsOf = (table: string) =>
  db.query<{ id: string; name: string; tag: string | null }>(
    `SELECT t.id::text AS id, t.name, t.tag FROM ${db.schema}.${table} AS t ORDER BY t.id`,
  );

describe('PostgreSQL store: group commit', () => {
  it('sends inserts made together as one statement, and creates every plant', async () => {
    const store = await openStore();
    const ids = Array.from({ length: 50 }, (_, i) => BigInt(i) * 1_000_000_007n);
    const results = await Promise.all(ids.map((id) => store.insert({ id, name: `plant ${id}` })));
    expect(results.every((result) => result.created)).toBe(true);
    expect(store.stats()).toMatchObject({ statements: 1, rows: 50, inFlight: 0, queued: 0 });
    expect((await rowsOf(store.name)).length).toBe(50);
  });

  it('gives an id inserted twice in one burst one row: the first insert creates, the second gets the first plant', async () => {
    const store = await openStore();
    const [first, second, third] = await Promise.all([
      store.insert({ id: 5n, name: 'Oak' }),
      store.insert({ id: 5n, name: 'Elm', tag: 'x' }),
      store.insert({ id: 5n, name: 'Oak' }),
    ]);
    expect(first).toEqual({ created: true });
    expect(second).toEqual({ created: false, existing: { id: 5n, name: 'Oak' } });
    expect(third).toEqual({ created: false, existing: { id: 5n, name: 'Oak' } });
    expect(store.stats()).toMatchObject({ statements: 1, rows: 1 });
    expect(await rowsOf(store.name)).toEqual([{ id: '5', name: 'Oak', tag: null }]);
  });

  it('keeps at most batchesInFlight statements in flight; the rest wait and then go together', async () => {
    const store = await openStore({ poolSize: 4, batchesInFlight: 2 });
    // Another session holds the table: every insert statement waits for it.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${db.schema}.${store.name} IN EXCLUSIVE MODE`);
      const inserts: Promise<unknown>[] = [];
      for (let i = 0; i < 6; i++) {
        inserts.push(store.insert({ id: BigInt(i), name: `n${i}` }));
        await new Promise((resolve) => setImmediate(resolve)); // a turn of its own: no sharing of a statement
      }
      await waitUntil(() => store.poolStats().inUse === 2);
      expect(store.stats()).toMatchObject({ inFlight: 2, queued: 4, statements: 2 });
      expect(store.poolStats()).toMatchObject({ inUse: 2, max: 4 });
      await holder.query('COMMIT');
      expect(await Promise.all(inserts)).toEqual(Array.from({ length: 6 }, () => ({ created: true })));
      // The four that waited went as one statement.
      expect(store.stats()).toMatchObject({ statements: 3, rows: 6, inFlight: 0, queued: 0 });
      expect(store.poolStats()).toMatchObject({ inUse: 0, waiting: 0 });
    } finally {
      await holder.end();
    }
  });
});

describe('PostgreSQL store: the rows in the table', () => {
  it('stores ids as exact bigint, never through a JS number', async () => {
    const store = await openStore();
    const ids = [-(2n ** 63n), 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 53n) - 1n];
    for (const id of ids) await store.insert({ id, name: 'n' });
    expect((await rowsOf(store.name)).map((row) => row.id)).toEqual([
      '-9223372036854775808',
      '-9007199254740993',
      '9007199254740993',
      '9223372036854775807',
    ]);
    const [column] = await db.query<{ type: string }>(
      `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = '${db.schema}.${store.name}'::regclass AND attname = 'id'`,
    );
    expect(column!.type).toBe('bigint');
  });

  it('stores ordinary names as themselves, so SQL finds them; U+0000, backslashes and lone surrogates escaped', async () => {
    const store = await openStore();
    await store.insert({ id: 1n, name: 'Fern 🌿', tag: 'shade' });
    await store.insert({ id: 2n, name: 'a\u0000b', tag: 'C:\\pots' });
    await store.insert({ id: 3n, name: 'x\uD800', tag: '\uDFFFy' });
    expect(await rowsOf(store.name)).toEqual([
      { id: '1', name: 'Fern 🌿', tag: 'shade' },
      { id: '2', name: 'a\\0b', tag: 'C:\\\\pots' },
      { id: '3', name: 'x\\uD800', tag: '\\uDFFFy' },
    ]);
    expect(await db.query(`SELECT id::text FROM ${db.schema}.${store.name} WHERE name = 'Fern 🌿'`)).toEqual([
      { id: '1' },
    ]);
  });

  it('stores an absent tag as NULL and an empty tag as the empty string', async () => {
    const store = await openStore();
    await store.insert({ id: 1n, name: 'bare' });
    await store.insert({ id: 2n, name: 'empty', tag: '' });
    expect(await rowsOf(store.name)).toEqual([
      { id: '1', name: 'bare', tag: null },
      { id: '2', name: 'empty', tag: '' },
    ]);
  });

  it('keeps strings that mean something in an array literal: NULL, braces, quotes, commas', async () => {
    const store = await openStore();
    const plants = ['NULL', 'null', '{}', '{"a",b}', '"', ',', ' padded ', '\\N'].map((name, i) => ({
      id: BigInt(i),
      name,
      tag: name,
    }));
    await Promise.all(plants.map((plant) => store.insert(plant)));
    for (const plant of plants)
      expect(await store.insert({ id: plant.id, name: 'other' })).toEqual({ created: false, existing: plant });
  });

  it('answers an id another server committed with that row, read back exactly', async () => {
    const store = await openStore();
    await db.query(
      `INSERT INTO ${db.schema}.${store.name} (id, name, tag) VALUES (9223372036854775807, 'a\\0b', NULL), (7, 'C:\\temp', 't')`,
    );
    expect(await store.insert({ id: 2n ** 63n - 1n, name: 'mine' })).toEqual({
      created: false,
      existing: { id: 2n ** 63n - 1n, name: 'a\u0000b' },
    });
    // A backslash that starts no escape (a row written by hand) is kept as written.
    expect(await store.insert({ id: 7n, name: 'mine' })).toEqual({
      created: false,
      existing: { id: 7n, name: 'C:\\temp', tag: 't' },
    });
  });

  it('works with quoted identifiers: a table and schema name with quotes, spaces and capitals', async () => {
    const schema = `Odd "schema" ${db.schema.slice(-6)}`;
    const store = await openStore({ schema, table: 'Plants "2"' });
    expect(store.table).toBe(`"Odd ""schema"" ${db.schema.slice(-6)}"."Plants ""2"""`);
    expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    expect(await db.query(`SELECT name FROM ${store.table}`)).toEqual([{ name: 'Fern' }]);
    await db.query(`DROP SCHEMA ${store.table.split('.')[0]} CASCADE`);
  });
});

describe('PostgreSQL store: pools, prepared statements, close', () => {
  it('uses a pool the caller owns, reports its figures, and leaves it open on close', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 3 });
    try {
      const store = await createPostgresStore({ pool, schema: db.schema, table: db.table() });
      expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
      expect(store.poolStats()).toEqual({
        total: pool.totalCount,
        idle: pool.idleCount,
        inUse: pool.totalCount - pool.idleCount,
        waiting: 0,
        max: 3,
      });
      await store.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('keeps two tables apart on one connection: prepared statements are named after their table', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      const a = await createPostgresStore({ pool, schema: db.schema, table: db.table() });
      const b = await createPostgresStore({ pool, schema: db.schema, table: db.table() });
      expect(await a.insert({ id: 1n, name: 'in a' })).toEqual({ created: true });
      expect(await b.insert({ id: 1n, name: 'in b' })).toEqual({ created: true });
      expect(await a.insert({ id: 1n, name: 'x' })).toEqual({ created: false, existing: { id: 1n, name: 'in a' } });
      expect(await b.insert({ id: 1n, name: 'x' })).toEqual({ created: false, existing: { id: 1n, name: 'in b' } });
    } finally {
      await pool.end();
    }
  });

  it('works without prepared statements (PgBouncer in transaction mode)', async () => {
    const store = await openStore({ preparedStatements: false });
    expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    expect(await store.insert({ id: 1n, name: 'Oak' })).toEqual({ created: false, existing: { id: 1n, name: 'Fern' } });
  });

  it('finishes the inserts in flight on close, then refuses inserts and health checks with a closed PostgresStoreError', async () => {
    const store = await openStore();
    const inFlight = Promise.all([store.insert({ id: 1n, name: 'a' }), store.insert({ id: 2n, name: 'b' })]);
    const closing = store.close();
    expect(await inFlight).toEqual([{ created: true }, { created: true }]);
    await closing;
    await store.close();
    for (const call of [() => store.insert({ id: 3n, name: 'c' }), () => store.checkHealth()]) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect(error).toMatchObject({ code: 'closed' });
      expect(StoreUnavailableError.is(error)).toBe(false);
    }
    expect((await rowsOf(store.name)).length).toBe(2);
  });
});

describe('PostgreSQL store: options', () => {
  it('refuses bad options with a TypeError or RangeError naming the option', async () => {
    const refused: [PostgresStoreOptions, RegExp][] = [
      [{ connectionString: db.url, poolSize: 0 }, /poolSize/],
      [{ connectionString: db.url, statementTimeout: -1 }, /statementTimeout/],
      [{ connectionString: db.url, startTimeout: 1.5 }, /startTimeout/],
      [{ connectionString: db.url, table: 'x'.repeat(64) }, /table must be 1 to 63 bytes/],
      [{ connectionString: db.url, schema: '' }, /schema must be 1 to 63 bytes/],
      [{ connectionString: db.url, table: 'a\u0000b' }, /table must be/],
      [{ connectionString: db.url, pool: new pg.Pool() }, /either pool or connectionString/],
    ];
    for (const [options, message] of refused) {
      const error = await createPostgresStore(options).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error instanceof TypeError || error instanceof RangeError, String(message)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('passes its health check while the database answers', async () => {
    const store = await openStore();
    await expect(store.checkHealth()).resolves.toBeUndefined();
  });

  it('refuses what is not a plant before it reaches the database', async () => {
    const store = await openStore();
    await expect(store.insert({ id: 2n ** 63n, name: 'past int64' })).rejects.toThrow(RangeError);
    expect(store.stats().statements).toBe(0);
  });
});

/** Polls `condition` until it holds; fails after `ms`. */
async function waitUntil(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
