// The plant table at start: created when absent (unless createTable is false), accepted when it has the
// shape of the DDL docs/postgres.md gives, refused with a message naming the difference otherwise, and
// never altered but to add a missing nullable column (table-shape.test.ts, rolling-upgrade.test.ts).
// The DDL-less mode runs as a role that may only read and insert.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { createPostgresStore, PostgresStoreError, type PostgresStoreOptions } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());

/** The plant table as docs/postgres.md gives it to a DBA. */
const DDL = (table: string) =>
  `CREATE TABLE ${table} (\n  id bigint PRIMARY KEY,\n  name text NOT NULL,\n  tag text\n)`;

/** What createPostgresStore rejected with, or undefined when it resolved (the store is then closed). */
async function startError(options: PostgresStoreOptions): Promise<PostgresStoreError | undefined> {
  try {
    const store = await createPostgresStore({ connectionString: db.url, schema: db.schema, ...options });
    await store.close();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(PostgresStoreError);
    return error as PostgresStoreError;
  }
}

/** The columns of a table, as the catalog has them, to see that a refusal changed nothing. */
const columnsOf = (table: string) =>
  db.query(
    `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null FROM pg_attribute WHERE attrelid = '${db.schema}.${table}'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
  );

describe('PostgreSQL store: the table', () => {
  it('creates the table with the DDL of docs/postgres.md when it is absent, and its schema too', async () => {
    const schema = `${db.schema}_new`;
    const store = await createPostgresStore({ connectionString: db.url, schema, table: 'plants' });
    try {
      expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
    } finally {
      await store.close();
    }
    expect(
      await db.query(
        `SELECT attname::text AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null FROM pg_attribute WHERE attrelid = '${schema}.plants'::regclass AND attnum > 0 ORDER BY attnum`,
      ),
    ).toEqual([
      { name: 'id', type: 'bigint', not_null: true },
      { name: 'name', type: 'text', not_null: true },
      { name: 'tag', type: 'text', not_null: false },
    ]);
    expect(
      await db.query(
        `SELECT pg_get_constraintdef(oid) AS key FROM pg_constraint WHERE conrelid = '${schema}.plants'::regclass AND contype = 'p'`,
      ),
    ).toEqual([{ key: 'PRIMARY KEY (id)' }]);
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
  });

  it('starts on a table a DBA created with the DDL of docs/postgres.md, with createTable false', async () => {
    const table = db.table();
    await db.query(DDL(`${db.schema}.${table}`));
    expect(await startError({ table, createTable: false })).toBeUndefined();
  });

  it('starts when several stores create the same schema and table at once', async () => {
    const schema = `${db.schema}_race`;
    try {
      const stores = await Promise.all(
        Array.from({ length: 6 }, () => createPostgresStore({ connectionString: db.url, schema, table: 'plants' })),
      );
      await Promise.all(stores.map((store) => store.close()));
    } finally {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  });

  it('adds a missing nullable column (tag) with createTable, and serves the rows already there', async () => {
    const table = db.table();
    await db.query(`CREATE TABLE ${db.schema}.${table} (id bigint PRIMARY KEY, name text NOT NULL)`);
    await db.query(`INSERT INTO ${db.schema}.${table} VALUES (1, 'Fern')`);
    const store = await createPostgresStore({ connectionString: db.url, schema: db.schema, table });
    try {
      expect(await columnsOf(table)).toEqual([
        { name: 'id', type: 'bigint', not_null: true },
        { name: 'name', type: 'text', not_null: true },
        { name: 'tag', type: 'text', not_null: false },
      ]);
      expect(await store.insert({ id: 2n, name: 'Ivy', tag: 'vine' })).toEqual({ created: true });
      expect(await store.insert({ id: 1n, name: 'x' })).toEqual({ created: false, existing: { id: 1n, name: 'Fern' } });
    } finally {
      await store.close();
    }
  });

  it('refuses to start without the table when createTable is false, naming the table and the DDL', async () => {
    const error = await startError({ table: 'absent', createTable: false });
    expect(error?.code).toBe('schema');
    expect(error?.message).toContain(`the table "${db.schema}"."absent" does not exist`);
    expect(error?.message).toContain('createTable is false');
    expect(error?.message).toContain('"id" bigint PRIMARY KEY, "name" text NOT NULL, "tag" text');
    expect(await db.query(`SELECT to_regclass('${db.schema}.absent') AS found`)).toEqual([{ found: null }]);
  });

  const wrongShapes: [string, string, string][] = [
    ['an int id', '(id integer PRIMARY KEY, name text NOT NULL, tag text)', 'column "id" is integer, not bigint'],
    [
      'a varchar name',
      '(id bigint PRIMARY KEY, name varchar(100) NOT NULL, tag text)',
      'column "name" is character varying(100), not text',
    ],
    [
      'a name that allows NULL',
      '(id bigint PRIMARY KEY, name text, tag text)',
      'column "name" allows NULL, and must be NOT NULL',
    ],
    [
      'a tag that is NOT NULL',
      "(id bigint PRIMARY KEY, name text NOT NULL, tag text NOT NULL DEFAULT '')",
      'column "tag" is NOT NULL, and must allow NULL',
    ],
    [
      'an extra column that is NOT NULL without a default',
      '(id bigint PRIMARY KEY, name text NOT NULL, tag text, created_at timestamptz NOT NULL)',
      'it has a column "created_at" (timestamp with time zone) that a plant table does not',
    ],
    [
      'no primary key',
      '(id bigint NOT NULL, name text NOT NULL, tag text)',
      'it has no primary key, and must have PRIMARY KEY (id)',
    ],
    [
      'a primary key of two columns',
      '(id bigint, name text NOT NULL, tag text, PRIMARY KEY (id, name))',
      'its primary key is (id, name), not (id)',
    ],
    ['a bytea name', '(id bigint PRIMARY KEY, name bytea NOT NULL, tag text)', 'column "name" is bytea, not text'],
  ];
  for (const [what, columns, difference] of wrongShapes) {
    it(`refuses a table with ${what}, names the difference, and leaves the table as it was`, async () => {
      const table = db.table();
      await db.query(`CREATE TABLE ${db.schema}.${table} ${columns}`);
      const before = await columnsOf(table);
      const error = await startError({ table });
      expect(error?.code).toBe('schema');
      expect(error?.message).toContain(`the table "${db.schema}"."${table}" at 127.0.0.1:`);
      expect(error?.message).toContain(difference);
      expect(await columnsOf(table)).toEqual(before);
    });
  }

  it('names every difference at once', async () => {
    const table = db.table();
    await db.query(`CREATE TABLE ${db.schema}.${table} (id integer, label text, size integer NOT NULL)`);
    const error = await startError({ table });
    expect(error?.message).toMatch(
      /column "id" is integer, not bigint \(.*\); column "id" allows NULL.*; column "name" is missing.*; it has a column "size" \(integer\).*; it has no primary key.*; column "tag" is missing \(ALTER TABLE .* ADD COLUMN IF NOT EXISTS "tag" text\)\./,
    );
  });

  it('refuses a view in place of the table', async () => {
    const table = db.table();
    const source = db.table();
    await db.query(DDL(`${db.schema}.${source}`));
    await db.query(`CREATE VIEW ${db.schema}.${table} AS SELECT * FROM ${db.schema}.${source}`);
    const error = await startError({ table });
    expect(error?.message).toContain("it is not a table (pg_class.relkind 'v')");
  });
});

describe('PostgreSQL store: a database user without DDL rights', () => {
  let role: string;
  let url: string;
  beforeAll(async () => {
    role = `plant_app_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(9).toString('hex');
    await db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await db.query(`GRANT USAGE ON SCHEMA ${db.schema} TO ${role}`);
    const server = new URL(db.url);
    server.username = role;
    server.password = password;
    url = server.href;
  });
  afterAll(async () => {
    await db.query(`DROP OWNED BY ${role}`);
    await db.query(`DROP ROLE ${role}`);
  });

  it('serves a table it may read and insert into, with createTable false', async () => {
    const table = db.table();
    await db.query(DDL(`${db.schema}.${table}`));
    await db.query(`GRANT SELECT, INSERT ON ${db.schema}.${table} TO ${role}`);
    const store = await createPostgresStore({ connectionString: url, schema: db.schema, table, createTable: false });
    try {
      expect(await store.insert({ id: 1n, name: 'Fern' })).toEqual({ created: true });
      expect(await store.insert({ id: 1n, name: 'Oak' })).toEqual({
        created: false,
        existing: { id: 1n, name: 'Fern' },
      });
    } finally {
      await store.close();
    }
  });

  it('refuses to start when the table is absent and the user may not create it, saying so', async () => {
    const error = await createPostgresStore({ connectionString: url, schema: db.schema, table: db.table() }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'refused' });
    expect((error as Error).message).toMatch(
      /does not exist .* and the database user may not create it .*pass createTable: false/,
    );
  });

  it('refuses to start on a table that lacks an optional field’s column it may not add, naming the statement for the owner', async () => {
    const table = db.table();
    await db.query(`CREATE TABLE ${db.schema}.${table} (id bigint PRIMARY KEY, name text NOT NULL)`);
    await db.query(`GRANT SELECT, INSERT ON ${db.schema}.${table} TO ${role}`);
    const error = await createPostgresStore({ connectionString: url, schema: db.schema, table }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'refused', sqlState: '42501' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `lacks column "tag" of the plant's optional fields, and the database user may not add it \\(must be owner of table ${table} \\(42501\\)\\): have the table's owner run ALTER TABLE "${db.schema}"\\."${table}" ADD COLUMN IF NOT EXISTS "tag" text$`,
      ),
    );
  });

  it('refuses to start on a table it may not insert into, naming the missing right', async () => {
    const table = db.table();
    await db.query(DDL(`${db.schema}.${table}`));
    await db.query(`GRANT SELECT ON ${db.schema}.${table} TO ${role}`);
    const error = await createPostgresStore({
      connectionString: url,
      schema: db.schema,
      table,
      createTable: false,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'refused' });
    expect((error as Error).message).toContain(`may not INSERT on "${db.schema}"."${table}"`);
  });
});
