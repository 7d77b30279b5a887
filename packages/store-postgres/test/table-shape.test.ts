// The table follows the plant's shape: with createTable false the store names the exact statement that
// adds a newer shape's columns; a column it cannot add, or one of another type or nullability, is refused
// with its fix; the fields' bounds are CHECK constraints PostgreSQL enforces; and every kind of value
// comes back exactly as it was stored.
import type { PlantField, StoredPlant } from '@plant-store/core';
import { describe, expect, it } from 'vitest';
import { PostgresStoreError } from '../src/index.js';
import type { ShapedStoreOptions } from '../src/postgres-store.js';
import {
  checksOf,
  columnsOf,
  NEWER_COLUMNS,
  NEWER_FIELDS,
  OLDER_FIELDS,
  optionalField,
  shaped,
  shapedStores,
  OLDER_COLUMNS,
} from './plant-shapes.js';

const { db, open } = shapedStores({ poolSize: 2, fields: OLDER_FIELDS });

/** What the store rejected with at start. */
async function startError(options: ShapedStoreOptions): Promise<PostgresStoreError> {
  const error = await open(options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PostgresStoreError);
  return error as PostgresStoreError;
}

/** A table of today's shape, as a DBA creates it from docs/postgres.md, with `more` columns. */
async function todayTable(more = ''): Promise<string> {
  const table = db().table();
  await db().query(`CREATE TABLE ${db().schema}.${table} (id bigint PRIMARY KEY, name text NOT NULL, tag text${more})`);
  return table;
}

describe('PostgreSQL store: a table of an older shape', () => {
  it('refuses to start with createTable false, naming the exact statement that adds the columns, which then lets it start', async () => {
    const table = await todayTable();
    const error = await startError({ table, fields: NEWER_FIELDS, createTable: false });
    const qualified = `"${db().schema}"."${table}"`;
    const statement = `ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS "heightCm" integer, ADD CHECK ("heightCm" >= 1) NOT VALID, ADD COLUMN IF NOT EXISTS "ratio" double precision, ADD COLUMN IF NOT EXISTS "indoor" boolean, ADD COLUMN IF NOT EXISTS "light" text, ADD CHECK ("light" IN ('shade', 'part sun', 'sun')) NOT VALID`;
    expect(error.code).toBe('schema');
    expect(error.message).toBe(
      `the table ${qualified} at ${error.target} lacks columns "heightCm", "ratio", "indoor", "light" of the plant's optional fields, and createTable is false: add them (${statement}), or allow createTable`,
    );
    expect(await columnsOf(db(), table)).toEqual(OLDER_COLUMNS);
    await db().query(statement);
    expect(await columnsOf(db(), table)).toEqual([...OLDER_COLUMNS, ...NEWER_COLUMNS]);
    const store = await open({ table, fields: NEWER_FIELDS, createTable: false });
    const plant = shaped({ id: 1n, name: 'Fern', heightCm: 40, ratio: 0.5, indoor: true, light: 'part sun' });
    expect(await store.insert(plant)).toEqual({ created: true });
    expect(await store.insert(shaped({ id: 1n, name: 'x' }))).toEqual({ created: false, existing: plant });
  });

  it('accepts columns it does not know that are nullable or have a default, and leaves them to the database', async () => {
    const table = await todayTable(
      ', note text, added timestamptz NOT NULL DEFAULT now(), seq bigint GENERATED ALWAYS AS IDENTITY',
    );
    const store = await open({ table, createTable: false });
    expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    expect(
      await db().query(`SELECT note, added IS NOT NULL AS added, seq::int AS seq FROM ${db().schema}.${table}`),
    ).toEqual([{ note: null, added: true, seq: 1 }]);
  });

  const refusals: [string, string, readonly PlantField[], (table: string) => string][] = [
    [
      'a missing column the shape requires',
      '',
      [...NEWER_FIELDS, { ...optionalField('species', 'string'), required: true }],
      (t) =>
        `column "species" is missing, and every plant has one: add it (ALTER TABLE ${t} ADD COLUMN "species" text), give every row a value, then ALTER TABLE ${t} ALTER COLUMN "species" SET NOT NULL`,
    ],
    [
      'a column of another type',
      ', "heightCm" bigint',
      NEWER_FIELDS,
      (t) => `column "heightCm" is bigint, not integer (ALTER TABLE ${t} ALTER COLUMN "heightCm" TYPE integer)`,
    ],
    [
      'NOT NULL on a column the shape holds optional',
      ', indoor boolean NOT NULL DEFAULT false',
      NEWER_FIELDS,
      (t) =>
        `column "indoor" is NOT NULL, and must allow NULL for a plant without it (ALTER TABLE ${t} ALTER COLUMN "indoor" DROP NOT NULL)`,
    ],
    [
      'a column it does not know, NOT NULL without a default',
      ', planted date NOT NULL',
      NEWER_FIELDS,
      (t) =>
        `it has a column "planted" (date) that a plant table does not, NOT NULL without a default, which the store's inserts leave empty (ALTER TABLE ${t} ALTER COLUMN "planted" DROP NOT NULL, or give it a default)`,
    ],
  ];
  for (const [what, more, fields, difference] of refusals) {
    it(`refuses ${what}, even with createTable: names the fix and changes nothing`, async () => {
      const table = await todayTable(more);
      const before = await columnsOf(db(), table);
      const error = await startError({ table, fields });
      const qualified = `"${db().schema}"."${table}"`;
      expect(error.code).toBe('schema');
      expect(error.message).toMatch(
        new RegExp(`^the table ${qualified.replaceAll('.', '\\.')} at 127\\.0\\.0\\.1:\\d+ is not a plant table: `),
      );
      expect(error.message).toContain(difference(qualified));
      // Every difference at once, the columns it would otherwise add among them.
      expect(error.message).toContain(`missing (ALTER TABLE ${qualified} ADD COLUMN IF NOT EXISTS`);
      expect(error.message).toMatch(
        /\. The store only ever adds a missing nullable column: fix the rest by hand, or point the store at another table$/,
      );
      expect(await columnsOf(db(), table)).toEqual(before);
    });
  }
});

/** Fields with a rule of every kind that PostgreSQL can hold. */
const BOUNDED: readonly PlantField[] = [
  ...NEWER_FIELDS.slice(0, 3),
  optionalField('count', 'int32', { minimum: -3, maximum: 100 }),
  optionalField('serial', 'int64', { minimum: 0n, maximum: 9223372036854775807n }),
  optionalField('wide', 'int32', { minimum: -2147483648, maximum: 2147483647 }),
  optionalField('score', 'number', { minimum: -1.5, exclusiveMaximum: 1e300 }),
  optionalField('share', 'number', { exclusiveMinimum: 0, maximum: 0.1 }),
  optionalField('level', 'number', { enum: [0.5, 1, 2.5] }),
  optionalField('pot', 'string', { enum: ["terra'cotta", 'a\\b', 'plain'], minLength: 1, maxLength: 3 }),
];

describe('PostgreSQL store: the fields’ bounds as CHECK constraints', () => {
  const violations: [string, string][] = [
    ['count', '-4'],
    ['count', '101'],
    ['serial', '-1'],
    ['score', '-1.6'],
    ['score', "'1e300'"],
    ['share', '0'],
    ['share', '0.10000000000000002'],
    ['level', '2'],
    ['pot', "'terra''cotta '"],
    ['pot', "'a\\b'"],
  ];

  it('creates the table with a CHECK for each bound PostgreSQL can hold, none for a string’s length', async () => {
    const table = db().table();
    await open({ table, fields: BOUNDED });
    expect(await checksOf(db(), table)).toEqual([
      "CHECK (((count >= '-3'::integer) AND (count <= 100)))",
      "CHECK ((level = ANY (ARRAY['0.5'::double precision, '1'::double precision, '2.5'::double precision])))",
      "CHECK ((pot = ANY (ARRAY['terra''cotta'::text, 'a\\\\b'::text, 'plain'::text])))",
      "CHECK (((score >= '-1.5'::double precision) AND (score < '1e+300'::double precision)))",
      'CHECK ((serial >= 0))',
      "CHECK (((share > '0'::double precision) AND (share <= '0.1'::double precision)))",
    ]);
  });

  for (const how of ['created with the table', 'added to an older table']) {
    it(`enforces each bound on a column ${how}, and takes the values at its edges`, async () => {
      const table = how === 'added to an older table' ? await todayTable() : db().table();
      const store = await open({ table, fields: BOUNDED });
      const qualified = `${db().schema}.${table}`;
      for (const [column, value] of violations) {
        await expect(
          db().query(`INSERT INTO ${qualified} (id, name, ${column}) VALUES (1, 'x', ${value})`),
          `${column} = ${value}`,
        ).rejects.toMatchObject({ code: '23514' });
      }
      const edges = shaped({
        id: 2n,
        name: 'edges',
        count: -3,
        serial: 0n,
        wide: -2147483648,
        score: -1.5,
        share: 0.1,
        level: 2.5,
        pot: 'a\\b',
      });
      expect(await store.insert(edges)).toEqual({ created: true });
      expect(
        await store.insert(shaped({ id: 3n, name: 'top', count: 100, serial: 2n ** 63n - 1n, pot: "terra'cotta" })),
      ).toEqual({
        created: true,
      });
      expect(await store.insert(shaped({ id: 2n, name: 'x' }))).toEqual({ created: false, existing: edges });
      // Past the core's checks (the seam takes plants as they are), the database still refuses: a 500.
      await expect(store.insert(shaped({ id: 4n, name: 'x', count: 101 }))).rejects.toMatchObject({
        name: 'PostgresStoreError',
        code: 'statement',
        sqlState: '23514',
      });
    });
  }
});

describe('PostgreSQL store: every kind of value, exactly', () => {
  const EVERY_KIND: readonly PlantField[] = [
    ...NEWER_FIELDS,
    optionalField('serial', 'int64'),
    optionalField('count', 'int32'),
    optionalField('note', 'string'),
  ];
  const doubles = [0.1, 0.30000000000000004, 1e300, -1e300, 5e-324, -1.7976931348623157e308, 2 ** 53 + 2, -0, 0];
  const strings = [
    '',
    '\u0000',
    'a\u0000b',
    '\uD800',
    'x\uDFFFy',
    '\uDFFF\uD800',
    '\\0',
    '\\uD800',
    '🌱',
    "'",
    '"{},NULL',
  ];

  const ratioOf = (plant: StoredPlant | undefined) => (plant as { ratio?: number } | undefined)?.ratio;

  it('reads back int64 and int32 extremes, doubles (0.1, 1e300, 5e-324, -0), booleans and strings with U+0000 and lone surrogates', async () => {
    const table = db().table();
    const store = await open({ table, fields: EVERY_KIND });
    const plants = [
      shaped({ id: -(2n ** 63n), name: 'min', serial: -(2n ** 63n), count: -(2 ** 31), indoor: false }),
      shaped({ id: 2n ** 63n - 1n, name: 'max', serial: 2n ** 63n - 1n, count: 2 ** 31 - 1, indoor: true }),
      ...doubles.map((ratio, i) => shaped({ id: BigInt(i), name: `ratio ${i}`, ratio })),
      ...strings.map((text, i) => shaped({ id: BigInt(100 + i), name: text, tag: text, note: text, light: 'sun' })),
    ];
    const results = await Promise.all(plants.map((plant) => store.insert(plant)));
    expect(results.every((result) => result.created)).toBe(true);
    // Another store reads them: from the table, not from memory, on a session that rounds doubles in text.
    const reader = await open({
      table,
      fields: EVERY_KIND,
      connectionString: `${db().url}?options=${encodeURIComponent('-c extra_float_digits=0')}`,
    });
    for (const plant of plants) {
      const result = await reader.insert(shaped({ id: plant.id, name: 'x' }));
      expect(result).toEqual({ created: false, existing: plant });
      // toEqual aside, the sign of a zero: Object.is tells -0 from 0.
      expect(Object.is(ratioOf(result.created ? undefined : result.existing), ratioOf(plant)), `${plant.id}`).toBe(
        true,
      );
    }
    // -0 is kept as -0, in the table as well.
    expect(await db().query(`SELECT ratio::text AS ratio FROM ${db().schema}.${table} WHERE name = 'ratio 7'`)).toEqual(
      [{ ratio: '-0' }],
    );
  });
});
