// A rolling upgrade on one table: an older server (today's plant shape) and a newer one (the shape plus
// optional fields of every kind) serve at once, each reading the other's plants; a rollback to the older
// one and forward again loses nothing; newer servers starting at once add the new columns once; and the
// statement that adds them gives up its lock wait soon, so the older servers' inserts keep going.
import { samePlant, type StoredPlant } from '@plant-store/core';
import pg from 'pg';
import { expect, it } from 'vitest';
import { openPostgresStore } from '../src/postgres-store.js';
import {
  checksOf,
  columnsOf,
  NEWER_COLUMNS,
  NEWER_FIELDS,
  OLDER_FIELDS,
  shaped,
  shapedStores,
  OLDER_COLUMNS,
} from './plant-shapes.js';

const { db, open } = shapedStores({ poolSize: 3, fields: OLDER_FIELDS });

const LIGHTS = ['shade', 'part sun', 'sun'];

/** Plants of the older shape: some with a tag. */
const olderPlants = (from: number, count: number): StoredPlant[] =>
  Array.from({ length: count }, (_, i) => {
    const plant = { id: BigInt(from + i), name: `old ${from + i}` };
    return i % 2 === 0 ? { ...plant, tag: `t${i}` } : plant;
  });

/** Plants of the newer shape: every new field on some, none on others. */
const newerPlants = (from: number, count: number): StoredPlant[] =>
  Array.from({ length: count }, (_, i) => {
    const plant = { id: BigInt(from + i), name: `new ${from + i}` };
    if (i % 4 === 3) return plant;
    return shaped({ ...plant, heightCm: i + 1, ratio: i / 10, indoor: i % 2 === 0, light: LIGHTS[i % 3] });
  });

/** The plant as a store of today's shape reads it: the new fields left out. */
const asOlderReadsIt = ({ id, name, tag }: StoredPlant): StoredPlant =>
  tag === undefined ? { id, name } : { id, name, tag };

it('serves an older and a newer server on one table at once: each creates, replays and conflicts, and reads the other’s plants', async () => {
  const table = db().table();
  // Both start at once on a table neither has made: whichever creates it, the newer one ends with its columns.
  const [older, newer] = await Promise.all([open({ table }), open({ table, fields: NEWER_FIELDS })]);
  expect(await columnsOf(db(), table)).toEqual([...OLDER_COLUMNS, ...NEWER_COLUMNS]);

  const fromOlder = olderPlants(1, 40);
  const fromNewer = newerPlants(101, 40);
  const created = await Promise.all([
    ...fromOlder.map((plant) => older.insert(plant)),
    ...fromNewer.map((plant) => newer.insert(plant)),
  ]);
  expect(created.every((result) => result.created)).toBe(true);

  // Racers for one id from both servers at once: one winner, and the other reads it in its own shape.
  for (let round = 0; round < 20; round++) {
    const id = 1_000n + BigInt(round);
    const old = { id, name: 'racer' };
    const [a, b] = await Promise.all([
      older.insert(old),
      newer.insert(shaped({ id, name: 'racer', heightCm: round + 1, indoor: true })),
    ]);
    expect([a.created, b.created].filter(Boolean)).toHaveLength(1);
    if (a.created) expect(b).toEqual({ created: false, existing: old });
    else {
      expect(a).toEqual({ created: false, existing: old });
      // The extra columns are not the older server's business: the same name is a replay to it.
      expect(samePlant(a.existing, old)).toBe(true);
    }
  }

  // The older one's plants, read by the newer one: the new fields absent.
  for (const plant of fromOlder) {
    expect(await newer.insert(shaped({ ...plant, indoor: false }))).toEqual({ created: false, existing: plant });
  }
  // The newer one's, read by the older one: its columns ignored; a replay by the spec's samePlant, or a conflict.
  for (const plant of fromNewer) {
    const result = await older.insert({ id: plant.id, name: plant.name });
    expect(result).toEqual({ created: false, existing: asOlderReadsIt(plant) });
    expect(result.created === false && samePlant(result.existing, { id: plant.id, name: plant.name })).toBe(true);
    const conflict = await older.insert({ id: plant.id, name: 'another' });
    expect(conflict.created === false && samePlant(conflict.existing, { id: plant.id, name: 'another' })).toBe(false);
  }
  // Each one's replays of its own plants get every field back.
  for (const plant of fromNewer) expect(await newer.insert(plant)).toEqual({ created: false, existing: plant });
  for (const plant of fromOlder) expect(await older.insert(plant)).toEqual({ created: false, existing: plant });

  // The older server's rows hold NULL in the new columns.
  expect(
    await db().query(
      `SELECT count(*)::int AS n FROM ${older.table} WHERE name LIKE 'old %' AND "heightCm" IS NULL AND ratio IS NULL AND indoor IS NULL AND light IS NULL`,
    ),
  ).toEqual([{ n: 40 }]);
});

it('rolls back and forward: the older server serves the newer one’s table, and the newer one started again finds every field', async () => {
  const table = db().table();
  const first = await open({ table, fields: NEWER_FIELDS });
  const fromNewer = newerPlants(1, 12);
  for (const plant of fromNewer) expect(await first.insert(plant)).toEqual({ created: true });
  await first.close();
  const checks = await checksOf(db(), table);

  // Back to the older server: the table has columns it does not know, which stay as they are.
  const older = await open({ table });
  const fromOlder = olderPlants(100, 12);
  for (const plant of fromOlder) expect(await older.insert(plant)).toEqual({ created: true });
  for (const plant of fromNewer)
    expect(await older.insert({ id: plant.id, name: 'x' })).toEqual({
      created: false,
      existing: asOlderReadsIt(plant),
    });
  await older.close();

  // Forward again: nothing to add, and every plant reads back as it was stored.
  const newer = await open({ table, fields: NEWER_FIELDS });
  expect(await columnsOf(db(), table)).toEqual([...OLDER_COLUMNS, ...NEWER_COLUMNS]);
  expect(await checksOf(db(), table)).toEqual(checks);
  for (const plant of [...fromNewer, ...fromOlder])
    expect(await newer.insert(shaped({ id: plant.id, name: 'x' }))).toEqual({ created: false, existing: plant });
});

it('adds the missing columns once when several newer servers start at once on an older table', async () => {
  const table = db().table();
  const older = await open({ table });
  expect(await older.insert({ id: 1n, name: 'Fern', tag: 'shade' })).toEqual({ created: true });

  const newer = await Promise.all(Array.from({ length: 6 }, () => open({ table, fields: NEWER_FIELDS, poolSize: 1 })));
  expect(await columnsOf(db(), table)).toEqual([...OLDER_COLUMNS, ...NEWER_COLUMNS]);
  // One CHECK each: a second ALTER would have added its own again.
  expect(await checksOf(db(), table)).toEqual([
    'CHECK (("heightCm" >= 1)) NOT VALID',
    "CHECK ((light = ANY (ARRAY['shade'::text, 'part sun'::text, 'sun'::text]))) NOT VALID",
  ]);
  const plant = shaped({ id: 2n, name: 'Ivy', heightCm: 30, ratio: 0.25, indoor: true, light: 'sun' });
  expect(await newer[3]!.insert(plant)).toEqual({ created: true });
  expect(await newer[5]!.insert(shaped({ id: 2n, name: 'Ivy' }))).toEqual({ created: false, existing: plant });
  expect(await newer[0]!.insert(shaped({ id: 1n, name: 'x' }))).toEqual({
    created: false,
    existing: { id: 1n, name: 'Fern', tag: 'shade' },
  });
});

it('gives up the lock wait of its ALTER soon, so the older servers keep inserting, and names the statement when the table stays locked', async () => {
  const table = db().table();
  const older = await open({ table, statementTimeout: 3_000 });
  // A long transaction that read the table: ALTER TABLE waits for it, and inserts queue behind the ALTER.
  const holder = new pg.Client({ connectionString: db().url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`SELECT count(*) FROM ${older.table}`);
    const started = open({ table, fields: NEWER_FIELDS, startTimeout: 3_000 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Within the older server's statement timeout each time, though the newer one keeps trying.
    for (let i = 0; i < 5; i++) {
      expect(await older.insert({ id: BigInt(i), name: `during ${i}` })).toEqual({ created: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const error = await started;
    expect(error).toMatchObject({ name: 'PostgresStoreError', code: 'schema', sqlState: '55P03' });
    expect((error as Error).message).toContain(
      `the table ${older.table} at ${older.target} stayed locked by other sessions past the 1000 ms lock timeout`,
    );
    expect((error as Error).message).toContain(
      `(ALTER TABLE ${older.table} ADD COLUMN IF NOT EXISTS "heightCm" integer, ADD CHECK ("heightCm" >= 1) NOT VALID, ADD COLUMN IF NOT EXISTS "ratio" double precision,`,
    );
    expect(await columnsOf(db(), table)).toEqual(OLDER_COLUMNS);
  } finally {
    await holder.query('COMMIT');
    await holder.end();
  }
  const newer = await open({ table, fields: NEWER_FIELDS });
  expect(await newer.insert(shaped({ id: 0n, name: 'x' }))).toEqual({
    created: false,
    existing: { id: 0n, name: 'during 0' },
  });
});

it('keeps an older and a newer store apart on one connection: their statements are named after their columns', async () => {
  const pool = new pg.Pool({ connectionString: db().url, max: 1 });
  try {
    const table = db().table();
    const older = await openPostgresStore({ pool, schema: db().schema, table, fields: OLDER_FIELDS });
    const newer = await openPostgresStore({ pool, schema: db().schema, table, fields: NEWER_FIELDS });
    const plant = shaped({ id: 2n, name: 'Oak', indoor: false });
    expect(await older.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    expect(await newer.insert(plant)).toEqual({ created: true });
    expect(await older.insert({ id: 2n, name: 'x' })).toEqual({ created: false, existing: { id: 2n, name: 'Oak' } });
    expect(await newer.insert(shaped({ id: 2n, name: 'x' }))).toEqual({ created: false, existing: plant });
  } finally {
    await pool.end();
  }
});
