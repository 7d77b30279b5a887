// What the server's log says when the database fails a create: the 503 of a read-only session (25006)
// and the 500 of a table dropped under the server (42P01) each carry the SQLSTATE in their log line.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { listening, run } from './cli-process.js';
import { createPlant, databaseFlags } from './cli-postgres-support.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

const create = (url: string, id: number) => createPlant(url, 't0k', id);

const serve = (url: string, table: string) =>
  run([...databaseFlags(url, db.schema, table), '--port', '0', '--token', 't0k', '--log', '--log-level', 'debug']);

/** The JSON log lines of `stderr` with `event`. */
const lines = (stderr: string, event: string) =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; event?: string; error?: string })
    .filter((line) => line.event === event);

it('logs the SQLSTATE of a 503: a read-only session (25006)', async () => {
  const table = db.table();
  await db.query(`CREATE TABLE "${db.schema}"."${table}" (id bigint PRIMARY KEY, name text NOT NULL, tag text)`);
  const url = new URL(db.url);
  url.searchParams.set('options', '-c default_transaction_read_only=on');
  const server = serve(url.toString(), table);
  expect(await create(await listening(server), 1)).toBe(503);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  const [line] = lines(server.stderr, 'store-unavailable');
  expect(line?.error).toMatch(/^StoreUnavailableError: PostgreSQL at 127\.0\.0\.1:\d+ is unavailable: .*\(25006\)$/);
}, 60_000);

it('logs the SQLSTATE of a 500 at error level: a table dropped under the server (42P01)', async () => {
  const table = db.table();
  const server = serve(db.url, table);
  const url = await listening(server);
  expect(await create(url, 1)).toBe(200);
  await db.query(`DROP TABLE "${db.schema}"."${table}"`);
  expect(await create(url, 2)).toBe(500);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  const [line] = lines(server.stderr, 'fault');
  expect(line?.level).toBe('error');
  expect(line?.error).toMatch(
    /^PostgresStoreError: PostgreSQL at 127\.0\.0\.1:\d+ failed an insert into .* with SQLSTATE 42P01: /,
  );
}, 60_000);
