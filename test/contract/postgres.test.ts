// The contract table through the reference server on PostgreSQL: every case on a new table of its own
// (so the store starts empty, as on every transport), answered exactly as the core answers it in memory,
// and the table left holding the same plants as the core's memory store.
import { type PlantStoreServer, startPlantStoreServer } from '@plant-store/server';
import { createPostgresStore, type PostgresStore } from '@plant-store/store-postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { cases } from './cases.js';
import { assertContract, casesFor, observe, runCase } from './harness.js';
import { sendOverHttp } from './http.js';
import { API_ORIGIN, appFor, toRequest, tokensOf } from './reference.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterAll(() => db?.close());

it.each(casesFor(cases, 'server-postgres'))(
  '%s (reference server on PostgreSQL)',
  async (_name, testCase, caseIndex) => {
    const { config } = testCase;
    const table = db.table();
    let store: PostgresStore | undefined;
    let server: PlantStoreServer<PostgresStore> | undefined;
    try {
      store = await createPostgresStore({ connectionString: db.url, schema: db.schema, table, poolSize: 2 });
      server = await startPlantStoreServer({
        port: 0,
        host: '127.0.0.1',
        tokens: tokensOf(config),
        store,
        ...(config?.basePath !== undefined && { basePath: config.basePath }),
        ...(config?.bodyLimit !== undefined && { bodyLimit: config.bodyLimit }),
        ...(config?.jwt !== undefined && { auth: { jwt: config.jwt } }),
      });
      const origin = new URL(server.url).origin;
      const outcome = await runCase(testCase, caseIndex, (request) => sendOverHttp(origin, request));

      // The reference: the core in memory, whose store is then compared with the table.
      const core = appFor(config);
      const reference = await runCase(testCase, caseIndex, async (request) =>
        observe(await core.fetch(toRequest(API_ORIGIN, request))),
      );
      assertContract(testCase, caseIndex, 'server-postgres', outcome, reference);

      const rows = await db.query<{ id: string }>(`SELECT id::text AS id FROM "${db.schema}"."${table}" ORDER BY id`);
      const kept = (await core.store.list()).map((plant) => plant.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(rows.map((row) => row.id)).toEqual(kept.map(String));
    } finally {
      // The server first: a store passed to it stays open for its owner to close.
      await server?.close();
      await store?.close();
    }
  },
);
