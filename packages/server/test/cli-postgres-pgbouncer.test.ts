// plant-store-server behind a real PgBouncer (Debian's package), left at its defaults, in session and
// in transaction mode: it starts, and a burst of 64 concurrent creates is answered 200 every time. The
// counts are printed, with PgBouncer's version. Also with --workers 2, each worker taking the store
// options from the command line.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type PoolMode, sharedPgBouncer, type TestPgBouncer } from '../../../test/support/pgbouncer.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { describeWithTools } from '../../../test/support/system-tools.js';
import { listening, run } from './cli-process.js';
import { createPlant, databaseFlags } from './cli-postgres-support.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

const TOKEN = 't0k';
const where = (url: string, table: string) => databaseFlags(url, db.schema, table);
const ROUNDS = 4;
const CONCURRENCY = 64;

/** `ROUNDS` bursts of `CONCURRENCY` creates of new ids at once; the count of each status. */
async function burst(url: string, firstId: number): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const statuses = await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, i) =>
        createPlant(url, TOKEN, firstId + round * CONCURRENCY + i, `plant ${round}.${i}`),
      ),
    );
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

it('gives each worker its --database-pool-size: two workers of 1 connection hold 2 connections after a burst', async () => {
  const table = db.table();
  const name = `plant-store-pool-${table}`;
  const server = run([
    '--workers',
    '2',
    ...where(`${db.url}?application_name=${name}`, table),
    '--database-pool-size',
    '1',
    '--port',
    '0',
    '--token',
    TOKEN,
  ]);
  const url = await listening(server);
  expect(await burst(url, 9_000)).toEqual({ 200: ROUNDS * CONCURRENCY });
  // Idle connections stay in the pool for 30 s: what each worker opened is still there.
  const [row] = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
    [name],
  );
  expect(Number(row?.n)).toBe(2);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}, 120_000);

describeWithTools(['pgbouncer'], 'behind PgBouncer', () => {
  const bouncers = new Map<PoolMode, TestPgBouncer>();
  beforeAll(async () => {
    for (const mode of ['session', 'transaction'] as const) bouncers.set(mode, await sharedPgBouncer(db, mode));
  });

  for (const mode of ['session', 'transaction'] as const) {
    it(`serves a burst of 64 concurrent creates through PgBouncer in ${mode} mode at its defaults, every answer 200`, async () => {
      const bouncer = bouncers.get(mode)!;
      const table = db.table();
      const server = run([
        ...where(bouncer.url, table),
        '--port',
        '0',
        '--token',
        TOKEN,
        '--log',
        '--log-level',
        'warn',
      ]);
      const url = await listening(server);
      const counts = await burst(url, 1_000);
      console.log(
        `${bouncer.version}, pool_mode = ${mode}: ${ROUNDS} x ${CONCURRENCY} creates, statuses ${JSON.stringify(counts)}`,
      );
      expect(counts).toEqual({ 200: ROUNDS * CONCURRENCY });
      const [row] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM "${db.schema}"."${table}"`);
      expect(Number(row?.n)).toBe(ROUNDS * CONCURRENCY);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.stderr).toBe('');
    }, 120_000);
  }

  it('serves with --workers 2 behind PgBouncer in transaction mode, every answer 200', async () => {
    const table = db.table();
    const server = run([
      '--workers',
      '2',
      ...where(bouncers.get('transaction')!.url, table),
      '--port',
      '0',
      '--token',
      TOKEN,
    ]);
    const url = await listening(server);
    const counts = await burst(url, 5_000);
    console.log(
      `${bouncers.get('transaction')!.version}, pool_mode = transaction, --workers 2: statuses ${JSON.stringify(counts)}`,
    );
    expect(counts).toEqual({ 200: ROUNDS * CONCURRENCY });
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('gives each worker --database-create-table: with no, every worker refuses a missing table and the start exits 1', async () => {
    const server = run([
      '--workers',
      '2',
      ...where(bouncers.get('transaction')!.url, 'never_created'),
      '--database-create-table',
      'no',
      '--port',
      '0',
    ]);
    expect(await server.exited).toBe(1);
    expect(server.stderr).toMatch(
      /the table "plant_store_test_\w+"\."never_created" does not exist at 127\.0\.0\.1:\d+, and createTable is false/,
    );
    const [row] = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1 AND tablename = 'never_created'`,
      [db.schema],
    );
    expect(row?.n).toBe('0');
  }, 60_000);
});
