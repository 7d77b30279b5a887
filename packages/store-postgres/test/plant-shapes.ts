// Plant shapes for the tests of a table that follows the shape: today's (what an older server runs) and
// today's plus optional fields of every kind (what a newer server runs, once a maintainer has added them
// to openapi.yaml); stores of any shape on a test file's schema; the catalog queries that show what the
// store made of the table. Both shapes are written out, not read from PLANT_FIELDS, so that these tests
// keep their meaning when the spec gains a field.
import type { PlantField, StoredPlant } from '@plant-store/core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import type { PostgresStore } from '../src/index.js';
import { openPostgresStore, type ShapedStoreOptions } from '../src/postgres-store.js';

const TYPES = { string: 'string', int32: 'integer', int64: 'integer', number: 'number', boolean: 'boolean' } as const;

/** An optional field of `kind`, as the generator describes one in PLANT_FIELDS. */
export function optionalField(name: string, kind: PlantField['kind'], rules: Partial<PlantField> = {}): PlantField {
  const format = kind === 'int32' || kind === 'int64' ? { format: kind } : {};
  return { name, type: TYPES[kind], kind, ...format, required: false, answered: kind !== 'int64', ...rules };
}

/** The plant's shape as the spec has it today (PLANT_FIELDS): what an older server runs. */
export const OLDER_FIELDS: readonly PlantField[] = [
  {
    name: 'id',
    type: 'integer',
    kind: 'int64',
    format: 'int64',
    required: true,
    answered: false,
    minimum: -(2n ** 63n),
    maximum: 2n ** 63n - 1n,
  },
  { name: 'name', type: 'string', kind: 'string', required: true, answered: true },
  optionalField('tag', 'string'),
];

/** Today's shape plus an optional field of each kind: an int32 with a minimum, a number, a boolean, a string enum. */
export const NEWER_FIELDS: readonly PlantField[] = [
  ...OLDER_FIELDS,
  optionalField('heightCm', 'int32', { minimum: 1, maximum: 2 ** 31 - 1 }),
  optionalField('ratio', 'number'),
  optionalField('indoor', 'boolean'),
  optionalField('light', 'string', { enum: ['shade', 'part sun', 'sun'] }),
];

/** The columns a newer server adds to a table of today's shape, as the catalog names their types. */
export const NEWER_COLUMNS = [
  { name: 'heightCm', type: 'integer', not_null: false },
  { name: 'ratio', type: 'double precision', not_null: false },
  { name: 'indoor', type: 'boolean', not_null: false },
  { name: 'light', type: 'text', not_null: false },
];

/** The columns of today's shape, as the catalog has them. */
export const OLDER_COLUMNS = [
  { name: 'id', type: 'bigint', not_null: true },
  { name: 'name', type: 'text', not_null: true },
  { name: 'tag', type: 'text', not_null: false },
];

/** A plant of another shape than the spec's, as the store's seam takes it. */
export const shaped = (plant: Record<string, unknown>) => plant as unknown as StoredPlant;

/** The columns of a table, as the catalog has them. */
export const columnsOf = (db: TestDatabase, table: string) =>
  db.query(
    `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null FROM pg_attribute WHERE attrelid = '${db.schema}.${table}'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
  );

/** The CHECK constraints of a table, as PostgreSQL writes them back. */
export const checksOf = async (db: TestDatabase, table: string) =>
  (
    await db.query<{ check: string }>(
      `SELECT pg_get_constraintdef(oid) AS check FROM pg_constraint WHERE conrelid = '${db.schema}.${table}'::regclass AND contype = 'c' ORDER BY conname`,
    )
  ).map((row) => row.check);

/**
 * A schema of the test file's own, and stores of any shape on it, each closed after its test: call it
 * at the top of the file. `db()` is the database once the file's setup has run.
 */
export function shapedStores(defaults: ShapedStoreOptions) {
  let db: TestDatabase | undefined;
  const opened: PostgresStore[] = [];
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db?.close());
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  return {
    db: () => db!,
    /** A store on the file's schema, of the file's shape unless `fields` names another. */
    async open(options: ShapedStoreOptions): Promise<PostgresStore> {
      const store = await openPostgresStore({ connectionString: db!.url, schema: db!.schema, ...defaults, ...options });
      opened.push(store);
      return store;
    },
  };
}
