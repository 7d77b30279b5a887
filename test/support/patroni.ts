// A PostgreSQL node under Patroni, for the high-availability cluster of ha-cluster.ts, and how that
// harness runs each of its programs (Daemon): detached, the leader of a process group of its own, its
// pid in a file beside it for the sweep of test/ha/sweep.mjs, and as root as the `postgres` user (spawned
// with its ids, so that the pid held is the program's own). Each node runs examples/patroni/patroni.yml,
// the file operators copy, with Patroni's variables for what differs per node, and a second file of the
// harness's for what a test must change (patroniConfigDirectory). Patroni runs Debian's PostgreSQL, the
// one whose pg_rewind findTool finds, and is asked over its REST API what it is.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTool, missingToolMessage, type SystemTool } from './system-tools.js';

/** examples/patroni: the configuration operators copy, which the harness runs as it is. */
export const EXAMPLE_DIRECTORY = fileURLToPath(new URL('../../examples/patroni/', import.meta.url));

/**
 * Patroni's timings in seconds for the tests, for failovers in seconds: the shortest its documentation
 * allows (Patroni 3.2 and later raise lower values to these; 3.0.2 takes any), within its rule loop_wait
 * + 2 × retry_timeout ≤ ttl. examples/patroni/patroni.yml holds the production values. A leader that
 * dies holds the leader key for up to `ttl`.
 */
export const PATRONI_TIMINGS = { ttl: 20, loop_wait: 1, retry_timeout: 3 } as const;

/**
 * How long a leader waits to hear from a standby before it ends the standby's stream (PostgreSQL's
 * `wal_sender_timeout`), in the tests: longer than the store's statement timeout (5 s), so that a commit
 * waits for a standby that is cut off until the store gives up on it.
 */
export const WAL_SENDER_TIMEOUT_S = 10;

export type NodeName = 'node-a' | 'node-b';
export const NODE_NAMES: readonly NodeName[] = ['node-a', 'node-b'];

/** Where a program of the machine is; throws naming the command that installs it when it is absent. */
export function program(tool: SystemTool): string {
  const path = findTool(tool);
  if (path === undefined) throw new Error(missingToolMessage(tool));
  return path;
}

/** As root, the ids of the `postgres` user (Debian's PostgreSQL packages create it); else undefined. */
export function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A new directory for a program that runs as the `postgres` user: its own, and no one else's. */
export function postgresDirectory(path: string, ids: { uid: number; gid: number } | undefined): string {
  mkdirSync(path, { mode: 0o700 });
  if (ids) chownSync(path, ids.uid, ids.gid);
  return path;
}

/** A file of the `postgres` user's, which no one else reads. */
export function postgresFile(path: string, text: string, ids: { uid: number; gid: number } | undefined): string {
  writeFileSync(path, text, { mode: 0o600 });
  if (ids) chownSync(path, ids.uid, ids.gid);
  return path;
}

/** Polls `probe` every 100 ms until it gives a value, `ms` at most; on a timeout the error shows `context()`. */
export async function poll<T>(ms: number, what: string, probe: () => Promise<T | undefined>, context: () => string) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s: ${what}\n${context()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A GET on 127.0.0.1: the status and body, or undefined when nothing answered within 2 s. */
export async function get(port: number, path: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) });
    return { status: response.status, body: await response.text() };
  } catch {
    return undefined;
  }
}

/**
 * What the harness's programs see of the environment: nothing of the caller's (PATRONI_* or PG* would
 * change their configuration), only `variables`, the ones the harness means them to read.
 */
function environment(home: string, variables: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', ...variables };
}

/**
 * One program the harness runs, detached (the leader of a process group of its own), its stdout and
 * stderr appended to `<dir>/<name>.log` and its pid in `<dir>/<name>.pid`; `variables` are its
 * environment beside PATH, HOME and the locale.
 */
export class Daemon {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #logFile: string;

  constructor(
    dir: string,
    name: string,
    command: string,
    args: readonly string[],
    asPostgres: boolean,
    variables: Readonly<Record<string, string>> = {},
  ) {
    this.#logFile = join(dir, `${name}.log`);
    const log = openSync(this.#logFile, 'a');
    try {
      this.#child = spawn(command, args, {
        ...(asPostgres && postgresIds()),
        cwd: dir,
        env: environment(dir, variables),
        stdio: ['ignore', log, log],
        detached: true,
      });
    } finally {
      closeSync(log);
    }
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.once('error', () => undefined);
    if (this.#child.pid !== undefined) writeFileSync(join(dir, `${name}.pid`), `${this.#child.pid}\n`);
  }

  /** Its pid, while it was started. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Its log: what it wrote since `from` (a length of the log, as {@link logLength} gave). */
  log(from = 0): string {
    try {
      return readFileSync(this.#logFile, 'utf8').slice(from);
    } catch {
      return '';
    }
  }

  logLength(): number {
    return this.log().length;
  }

  /** SIGKILLs the program alone (not its group), as a crash would, and resolves once it is gone. */
  async kill(): Promise<void> {
    if (this.running()) this.#child.kill('SIGKILL');
    await this.#exited;
  }

  /** SIGTERM, then SIGKILL to its whole group after `ms`; resolves once it is gone. */
  async stop(ms: number): Promise<void> {
    if (!this.running()) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-this.#child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, ms);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * One PostgreSQL node under Patroni: Patroni runs on `config` (patroniConfigDirectory) with `variables`
 * (patroniVariables), and so does patronictl.
 */
export class PatroniNode {
  readonly name: NodeName;
  readonly pgPort: number;
  readonly restPort: number;
  readonly dir: string;
  readonly #config: string;
  readonly #variables: Readonly<Record<string, string>>;
  #patroni: Daemon | undefined;
  #startedAt = 0;

  constructor(
    name: NodeName,
    ports: NodePorts,
    dir: string,
    config: string,
    variables: Readonly<Record<string, string>>,
  ) {
    this.name = name;
    this.pgPort = ports.pg;
    this.restPort = ports.rest;
    this.dir = dir;
    this.#config = config;
    this.#variables = variables;
  }

  start(): void {
    if (this.#patroni?.running()) throw new Error(`${this.name}: Patroni runs already`);
    this.#startedAt = this.#patroni?.logLength() ?? 0;
    this.#patroni = new Daemon(this.dir, 'patroni', program('patroni'), [this.#config], true, this.#variables);
  }

  /** The pid of its Patroni, while one runs. */
  patroniPid(): number | undefined {
    return this.#patroni?.running() ? this.#patroni.pid : undefined;
  }

  /** Its log (Patroni's and its PostgreSQL's), or only what its latest start wrote. */
  log(sinceStart = false): string {
    return this.#patroni?.log(sinceStart ? this.#startedAt : 0) ?? '';
  }

  /** The postmaster's pid, from its data directory's postmaster.pid, when it has one. */
  postmasterPid(): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * SIGKILLs Patroni and the postmaster at once, as a machine that dies would leave them (the backends,
   * orphaned, exit when they notice), and resolves once both are gone.
   */
  async kill(): Promise<void> {
    const postmaster = this.postmasterPid();
    if (postmaster === undefined) throw new Error(`${this.name} has no running PostgreSQL to kill`);
    const patroni = this.#patroni?.kill();
    process.kill(postmaster, 'SIGKILL');
    await patroni;
    await poll(
      10_000,
      `${this.name}'s postmaster gone`,
      async () => (alive(postmaster) ? undefined : true),
      () => '',
    );
  }

  async stop(): Promise<void> {
    await this.#patroni?.stop(20_000);
  }

  /** A planned switchover to `candidate` with patronictl, as an operator types it on this leader; resolves to its output. */
  switchover(candidate: NodeName): Promise<string> {
    return this.patronictl(['switchover', '--leader', this.name, '--candidate', candidate, '--force']);
  }

  /** patronictl on this node's configuration and variables, as an operator runs it here; resolves to its output. */
  patronictl(command: readonly string[]): Promise<string> {
    const args = ['-c', this.#config, ...command];
    return new Promise((resolve, reject) => {
      execFile(
        join(dirname(program('patroni')), 'patronictl'),
        args,
        { ...postgresIds(), cwd: this.dir, env: environment(this.dir, this.#variables), timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`patronictl ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
          else resolve(`${stdout}${stderr}`);
        },
      );
    });
  }

  /** Whether Patroni's REST API says this node runs the primary with the leader key (`GET /primary`). */
  async isPrimary(): Promise<boolean> {
    return (await get(this.restPort, '/primary'))?.status === 200;
  }

  /** Patroni's view of the node (`GET /patroni`): its role, timeline and, on a leader, its standbys. */
  async status(): Promise<PatroniStatus | undefined> {
    const answer = await get(this.restPort, '/patroni');
    if (answer?.status !== 200) return undefined;
    return JSON.parse(answer.body) as PatroniStatus;
  }

  /** The cluster's dynamic configuration as this node's Patroni last read it from etcd (`GET /config`). */
  async config(): Promise<Record<string, unknown> | undefined> {
    const answer = await get(this.restPort, '/config');
    if (answer?.status !== 200) return undefined;
    return JSON.parse(answer.body) as Record<string, unknown>;
  }
}

interface PatroniStatus {
  readonly role: string;
  readonly timeline?: number;
  readonly replication?: readonly { application_name: string; state: string; sync_state: string }[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A node's ports on 127.0.0.1: its PostgreSQL's and its Patroni REST API's. */
export interface NodePorts {
  readonly pg: number;
  readonly rest: number;
  /** Where the other node reaches its PostgreSQL (to stream, rewind or copy from it), when not `pg`. */
  readonly connect?: number;
}

/**
 * The variables examples/patroni/patroni.yml leaves to each node (its head lists them): the node's name,
 * addresses, data directory and Patroni's password file in `dir`, PostgreSQL's programs in `binDir`,
 * etcd's client port, and the two users' passwords.
 */
export function patroniVariables(
  name: NodeName,
  dir: string,
  ports: NodePorts,
  etcdPort: number,
  passwords: { readonly superuser: string; readonly replication: string },
  binDir: string,
): Record<string, string> {
  return {
    PATRONI_NAME: name,
    PATRONI_RESTAPI_LISTEN: `127.0.0.1:${ports.rest}`,
    PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${ports.rest}`,
    PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${ports.pg}`,
    PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${ports.connect ?? ports.pg}`,
    PATRONI_POSTGRESQL_DATA_DIR: join(dir, 'data'),
    PATRONI_POSTGRESQL_BIN_DIR: binDir,
    PATRONI_POSTGRESQL_PGPASS: join(dir, 'pgpass'),
    PATRONI_ETCD3_HOSTS: `127.0.0.1:${etcdPort}`,
    PATRONI_SUPERUSER_PASSWORD: passwords.superuser,
    PATRONI_REPLICATION_PASSWORD: passwords.replication,
  };
}

/**
 * What the tests change of examples/patroni/patroni.yml, and why:
 * - the timings: PATRONI_TIMINGS, for failovers in seconds;
 * - PostgreSQL's socket in the node's directory: the machine's belongs to its own PostgreSQL, and the
 *   test's user may not write there;
 * - no watchdog: the suite SIGKILLs a leader's Patroni, which with an armed watchdog resets the machine;
 * - etcd's proxies used as given: each node reaches etcd through a proxy of the harness's that a test
 *   cuts (ha-cluster.ts); otherwise Patroni's etcd3 client asks etcd for its members and talks to their
 *   advertised client addresses, past the proxy;
 * - `wal_sender_timeout` of {@link WAL_SENDER_TIMEOUT_S} s rather than 60: a leader cut off from its
 *   standby ends the standby's stream after that, and Patroni then drops the standby from the
 *   synchronous ones (or, strict, waits), within a test's seconds. `wal_receiver_timeout` stays 60 s,
 *   longer than any cut of the stream a test makes: the heal resets the stream the leader ended meanwhile
 *   (tcp-proxy.mjs), and the standby connects again.
 */
function testOverrides(dir: string): object {
  return {
    bootstrap: { dcs: { ...PATRONI_TIMINGS } },
    etcd3: { use_proxies: true },
    postgresql: {
      parameters: {
        unix_socket_directories: dir,
        wal_sender_timeout: `${WAL_SENDER_TIMEOUT_S}s`,
      },
    },
    watchdog: { mode: 'off' },
  };
}

/**
 * A node's configuration directory in `dir`, which Patroni (and patronictl) read file by file in name
 * order, a later file's keys replacing an earlier one's: patroni.yml, a copy of the example's, then
 * test-overrides.yml ({@link testOverrides}). Neither holds a password: those are variables.
 */
export function patroniConfigDirectory(dir: string, ids: { uid: number; gid: number } | undefined): string {
  const config = postgresDirectory(join(dir, 'config'), ids);
  postgresFile(join(config, 'patroni.yml'), readFileSync(join(EXAMPLE_DIRECTORY, 'patroni.yml'), 'utf8'), ids);
  // JSON is YAML: Patroni reads it as it is.
  postgresFile(join(config, 'test-overrides.yml'), `${JSON.stringify(testOverrides(dir), null, 2)}\n`, ids);
  return config;
}
