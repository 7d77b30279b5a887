// What each SQLSTATE means to the store: a 503 a retry can cure (StoreUnavailableError), a fault that
// is a 500 naming its SQLSTATE (PostgresStoreError 'statement'), and at start, what fails at once
// rather than after the wait. The table of codes in process; a read-only session and a table dropped
// under the store on a real PostgreSQL.
import { StoreUnavailableError } from '@plant-store/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { breaksConnection, describe, isFatalAtStart, isUnavailable } from '../src/internal/failures.js';
import { createPostgresStore, PostgresStoreError } from '../src/index.js';

const server = (code: string, message = 'from the server') => Object.assign(new Error(message), { code });

it.each([
  // code, a 503, the connection thrown away, fatal at start
  ['08006', true, true, false],
  ['08P01', true, true, false],
  ['57P01', true, true, false],
  ['57P03', true, true, false],
  ['53300', true, false, false],
  ['53100', true, false, false],
  ['58030', true, true, false],
  ['57014', true, false, false],
  ['40001', true, false, false],
  ['40P01', true, false, false],
  ['55P03', true, false, false],
  ['25006', true, false, false],
  ['42P05', true, false, false],
  ['26000', true, false, false],
  ['28P01', false, false, true],
  ['28000', false, false, true],
  ['3D000', false, false, true],
  ['42501', false, false, true],
  ['42P01', false, false, true],
  ['42703', false, false, true],
  ['22P02', false, false, true],
  ['23502', false, false, true],
  ['XX000', false, false, true],
])('SQLSTATE %s: a 503 %s, connection thrown away %s, fatal at start %s', (code, unavailable, breaks, fatal) => {
  const error = server(code);
  expect(isUnavailable(error)).toBe(unavailable);
  expect(breaksConnection(error)).toBe(breaks);
  expect(isFatalAtStart(error)).toBe(fatal);
});

it.each([
  ['unsupported startup parameter: options', true],
  ['password authentication failed', true],
  ['SASL authentication failed', true],
  ['no such user: plants', true],
  ['no such database: plants', true],
  ['server login failed: wrong password type', true],
  ['pgbouncer cannot connect to server', false],
  ['server login has been failing, try again later (server_login_retry)', false],
  ['no more connections allowed (max_client_conn)', false],
])("PgBouncer's 08P01 %j: fatal at start %s", (message, fatal) => {
  expect(isFatalAtStart(server('08P01', message))).toBe(fatal);
});

it('fails at once on a certificate that does not verify, and says it is the certificate', () => {
  const error = Object.assign(new Error('self-signed certificate in certificate chain'), {
    code: 'SELF_SIGNED_CERT_IN_CHAIN',
  });
  expect(isFatalAtStart(error)).toBe(true);
  expect(describe(error)).toBe(
    "the server's TLS certificate does not verify (sslmode, sslrootcert): self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)",
  );
  expect(isFatalAtStart(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
});

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

it('answers an insert into a read-only session (25006, as on a standby) with a 503 naming the SQLSTATE', async () => {
  const table = db.table();
  await db.query(`CREATE TABLE "${db.schema}"."${table}" (id bigint PRIMARY KEY, name text NOT NULL, tag text)`);
  const url = new URL(db.url);
  url.searchParams.set('options', '-c default_transaction_read_only=on');
  const store = await createPostgresStore({ connectionString: url.toString(), schema: db.schema, table });
  try {
    const error = await store.insert({ id: 1n, name: 'Fern' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/read-only transaction \(25006\)/);
  } finally {
    await store.close();
  }
});

it('rejects an insert into a table dropped under the store with a PostgresStoreError naming SQLSTATE 42P01 and host:port', async () => {
  const table = db.table();
  const store = await createPostgresStore({ connectionString: db.url, schema: db.schema, table });
  try {
    await store.insert({ id: 1n, name: 'Fern' });
    await db.query(`DROP TABLE "${db.schema}"."${table}"`);
    const error = await store.insert({ id: 2n, name: 'Moss' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'statement', sqlState: '42P01', target: store.target });
    expect((error as Error).message).toMatch(
      /^PostgreSQL at 127\.0\.0\.1:\d+ failed an insert into "plant_store_test_\w+"\."plants_\d+" with SQLSTATE 42P01: relation .* does not exist$/,
    );
  } finally {
    await store.close();
  }
});
