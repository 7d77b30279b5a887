// plant-store-server on PostgreSQL, as operators run it: --database serves from the table, the
// password never shows, an unreachable database is a bounded wait then exit 1, and `import` copies a
// --data log into the table, idempotently.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileStore } from '@plant-store/store-file';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { listening, run } from './cli-process.js';

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await openTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'plant-store-cli-pg-'));
}, 180_000);
afterAll(async () => {
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

const password = () => new URL(db.url).password;
const where = (table: string) => ['--database', db.url, '--database-schema', db.schema, '--database-table', table];

it('serves from the table with --database, names host:port and the table but never the password, and drains on SIGTERM', async () => {
  const table = db.table();
  const server = run([...where(table), '--port', '0', '--token', 't0k', '--log']);
  const url = await listening(server);
  expect(server.stdout).toMatch(new RegExp(`Database: 127\\.0\\.0\\.1:\\d+, table "${db.schema}"\\."${table}"`));
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
    body: '{"id":9223372036854775807,"name":"Edge"}',
  });
  expect(res.status).toBe(200);
  const rows = await db.query<{ id: string; name: string }>(`SELECT id::text, name FROM "${db.schema}"."${table}"`);
  expect(rows).toEqual([{ id: '9223372036854775807', name: 'Edge' }]);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(password()).not.toBe('');
  expect(server.stdout + server.stderr).not.toContain(password());
}, 30_000);

it('waits --database-wait seconds for an unreachable database, then exits 1 naming host:port, not the password', async () => {
  const started = Date.now();
  const result = run([
    '--database',
    'postgres://plants:s3cret-pw@127.0.0.1:1/plants',
    '--database-wait',
    '1',
    '--port',
    '0',
  ]);
  expect(await result.exited).toBe(1);
  expect(result.stderr).toMatch(/could not start: .*127\.0\.0\.1:1/);
  expect(result.stderr + result.stdout).not.toContain('s3cret-pw');
  // Bounded: one second of waiting and a start-up, not the default ten seconds.
  expect(Date.now() - started).toBeLessThan(9_000);
}, 30_000);

it('imports a --data log into the table, and a second import changes nothing', async () => {
  const table = db.table();
  const path = join(dir, 'import.log');
  const file = await openFileStore({ path });
  const plants = [
    { id: -(2n ** 63n), name: 'min' },
    { id: 2n ** 53n + 1n, name: 'past 2^53', tag: '' },
    { id: 7n, name: 'nul \u0000 and lone \uD800', tag: '🌱' },
    ...Array.from({ length: 2500 }, (_, i) => ({ id: 10_000n + BigInt(i), name: `plant ${i}` })),
  ];
  for (const plant of plants) await file.insert(plant);
  await file.close();

  const first = run(['import', '--data', path, ...where(table)]);
  expect(await first.exited, first.stderr).toBe(0);
  expect(first.stdout).toContain(`${plants.length} plants, ${plants.length} created, 0 already there, 0 in conflict`);
  const second = run(['import', '--data', path, ...where(table)]);
  expect(await second.exited, second.stderr).toBe(0);
  expect(second.stdout).toContain(`${plants.length} plants, 0 created, ${plants.length} already there, 0 in conflict`);
  const counted = await db.query<{ count: string }>(`SELECT count(*)::text AS count FROM "${db.schema}"."${table}"`);
  expect(counted).toEqual([{ count: String(plants.length) }]);

  // The server on that table serves the imported plants exactly: a replay of the odd strings is a 200.
  const server = run([...where(table), '--port', '0', '--token', 't0k']);
  const url = await listening(server);
  const replay = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
    body: JSON.stringify({ id: 7, name: 'nul \u0000 and lone \uD800', tag: '🌱' }),
  });
  expect(replay.status).toBe(200);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}, 60_000);

it('reports the ids stored in the table with another plant, leaves them, and exits 1', async () => {
  const table = db.table();
  const path = join(dir, 'conflict.log');
  const file = await openFileStore({ path });
  await file.insert({ id: 1n, name: 'from the file' });
  await file.insert({ id: 2n, name: 'only in the file' });
  await file.close();
  const seed = run(['import', '--data', path, ...where(table)]);
  expect(await seed.exited).toBe(0);
  await db.query(`UPDATE "${db.schema}"."${table}" SET name = 'changed in the table' WHERE id = 1`);

  const again = run(['import', '--data', path, ...where(table)]);
  expect(await again.exited).toBe(1);
  expect(again.stdout).toContain('2 plants, 0 created, 1 already there, 1 in conflict');
  expect(again.stderr).toMatch(/1 id is stored in the table with other fields, left as they are: 1\n/);
  const rows = await db.query<{ name: string }>(`SELECT name FROM "${db.schema}"."${table}" WHERE id = 1`);
  expect(rows).toEqual([{ name: 'changed in the table' }]);
}, 60_000);
