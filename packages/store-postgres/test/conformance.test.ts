// The PostgreSQL store passes the conformance suite every store runs (@plant-store/core/testing): each
// test on a table of its own, with a close and reopen of the same table, and a peer store (a second
// pool, as a second server would have) on the same table, so concurrent racers are split between two
// pools and meet only in the database.
import { testPlantStore } from '@plant-store/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { createPostgresStore } from '../src/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db?.close());

/** The table each store of the suite was opened on. */
const tables = new WeakMap<object, string>();
const open = async (table: string) => {
  const store = await createPostgresStore({ connectionString: db.url, schema: db.schema, table, poolSize: 4 });
  tables.set(store, table);
  return store;
};

testPlantStore(
  { describe, it, expect },
  {
    name: 'postgres',
    create: () => open(db.table()),
    reopen: async (store) => {
      await store.close?.();
      return open(tables.get(store)!);
    },
    openPeer: (store) => open(tables.get(store)!),
  },
);
