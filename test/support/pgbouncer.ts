// A real PgBouncer in front of a test's PostgreSQL: Debian's package (`apt-get install pgbouncer`, which
// .ci/run does), started on a free port of 127.0.0.1 with its own configuration in a temporary directory,
// left at PgBouncer's defaults but for the pool mode and what it needs to reach the database. Suites that
// use it are declared with `describeWithTools(['pgbouncer'], ...)`: skipped where it is absent, failing in
// CI. A suite that only needs one at its defaults in front of the run's shared PostgreSQL takes the run's
// one per pool mode (`sharedPgBouncer`); one that sets PgBouncer's settings or watches its connections
// starts its own.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startedOnce } from './once-per-run.js';
import { freePort, runDirectory, TEST_DATABASE_URL_VARIABLE, type TestDatabase } from './postgres.js';
import { findTool, missingToolMessage } from './system-tools.js';

/** Who PgBouncer runs as when started as root, which it refuses to stay. */
const RUN_AS = 'nobody';

export type PoolMode = 'session' | 'transaction';

/** A PgBouncer the test started. */
export interface TestPgBouncer {
  /** The database URL through PgBouncer: the upstream URL with its host and port replaced. */
  readonly url: string;
  readonly port: number;
  /** `PgBouncer 1.18.0`, as `pgbouncer --version` prints it. */
  readonly version: string;
  /** What PgBouncer wrote to stderr: its log. */
  log(): string;
  /** Stops it (SIGINT: immediate shutdown) and removes its directory. */
  close(): Promise<void>;
}

/** The PgBouncer program; throws naming the remedy when there is none. */
function pgbouncerProgram(): string {
  const program = findTool('pgbouncer');
  if (program === undefined) throw new Error(missingToolMessage('pgbouncer'));
  return program;
}

/** The version line of the PgBouncer the tests use; throws naming the remedy when there is none. */
export function pgbouncerVersion(): string {
  return execFileSync(pgbouncerProgram(), ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
}

/**
 * Starts PgBouncer in `poolMode` in front of the PostgreSQL of `upstreamUrl` (a URL with a user and a
 * password, as `openTestDatabase()` gives). Authentication is SCRAM on both sides, from a userlist
 * holding that one user; every other setting is PgBouncer's default, unless `settings` adds some.
 */
export async function startPgBouncer(
  upstreamUrl: string,
  poolMode: PoolMode,
  settings: Readonly<Record<string, string>> = {},
): Promise<TestPgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pgbouncer-'));
  let started: Awaited<ReturnType<typeof launch>>;
  try {
    started = await launch(dir, upstreamUrl, poolMode, settings, false);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...started,
    close: async () => {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The run's PgBouncer in `poolMode`, at its defaults, in front of the run's shared PostgreSQL (`db` is a
 * schema on it): started by the first file that asks, stopped at the end of the run, so its `close()`
 * leaves it running. With PLANT_STORE_TEST_DATABASE_URL, or outside a vitest run, a PgBouncer of the
 * caller's own, stopped by `close()`.
 */
export async function sharedPgBouncer(db: TestDatabase, poolMode: PoolMode): Promise<TestPgBouncer> {
  const runDir = process.env[TEST_DATABASE_URL_VARIABLE] ? undefined : runDirectory();
  if (!runDir) return startPgBouncer(db.url, poolMode);
  const name = `pgbouncer-${poolMode}`;
  const dir = join(runDir, name);
  const { url, port, version } = await startedOnce(runDir, name, `PgBouncer (${poolMode})`, async () => {
    const { url, port, version } = await launch(dir, db.url, poolMode, {}, true);
    return { url, port, version };
  });
  return { url, port, version, log: () => readFileSync(join(dir, LOG_FILE), 'utf8'), close: async () => undefined };
}

/** Where a PgBouncer's stderr (its log) goes, in its directory. */
const LOG_FILE = 'pgbouncer.log';

/**
 * Writes PgBouncer's configuration into `dir` and starts it there. A `detached` one outlives this
 * process: its pid goes to `pgbouncer.pid`, where the run's teardown finds it (removeServers).
 */
async function launch(
  dir: string,
  upstreamUrl: string,
  poolMode: PoolMode,
  settings: Readonly<Record<string, string>>,
  detached: boolean,
): Promise<Omit<TestPgBouncer, 'close'> & { stop(): Promise<void> }> {
  const program = pgbouncerProgram();
  const version = pgbouncerVersion();
  const upstream = new URL(upstreamUrl);
  const user = decodeURIComponent(upstream.username);
  const password = decodeURIComponent(upstream.password);
  mkdirSync(dir, { recursive: true });
  // As root PgBouncer refuses to run unless told a user to become, who must read its files.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const asRoot = process.getuid?.() === 0;
  // The password file is for PgBouncer's user alone.
  writeFileSync(join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', RUN_AS], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', RUN_AS], { encoding: 'utf8' }).trim());
    chownSync(join(dir, 'userlist.txt'), uid, gid);
  }
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No socket file in a shared directory.
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${poolMode}`,
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const logPath = join(dir, LOG_FILE);
  // Its log goes to a file this process opens, so a detached one keeps writing after this process ends.
  const logFd = openSync(logPath, 'a');
  const child: ChildProcess = spawn(program, [...(asRoot ? ['-u', RUN_AS] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', logFd],
    detached,
  });
  closeSync(logFd);
  const log = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  if (detached) {
    writeFileSync(join(dir, 'pgbouncer.pid'), `${child.pid}\n`);
    child.unref();
  }
  try {
    await waitForPort(port, child, log);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = new URL(upstreamUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { url: url.toString(), port, version, log, stop };
}

/** Resolves once `port` accepts a connection (at most 10 s); rejects with PgBouncer's log if it exits. */
async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`PgBouncer exited at start (${child.exitCode ?? child.signalCode}):\n${log()}`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`PgBouncer did not listen on 127.0.0.1:${port} within 10 s:\n${log()}`);
}
