// Types of embedded-postgres.mjs: the one module that starts an embedded PostgreSQL for the tests and the bench.

/** A PostgreSQL major the embedded server comes in (14 to 17 on linux-x64 only). */
export type PostgresMajor = 14 | 15 | 16 | 17 | 18;

export const MAJORS: readonly PostgresMajor[];
export const DEFAULT_MAJOR: 18;
/** Set it to a major (14 to 18) to run the PostgreSQL tests on that major. */
export const VERSION_VARIABLE: 'PLANT_STORE_TEST_POSTGRES_VERSION';

export interface StartOptions {
  /** The major; default PLANT_STORE_TEST_POSTGRES_VERSION, else 18. */
  version?: PostgresMajor;
  /** Server settings, each passed as `-c name=value` (over listen_addresses=127.0.0.1, no socket file). */
  settings?: Record<string, string>;
  /** The contents of pg_hba.conf, written after initdb (default: initdb's, password auth on 127.0.0.1). */
  hba?: string;
  /** Runs after initdb (and `hba`), before the first start: certificates and other files for the data directory. */
  configure?: (dataDir: string) => void | Promise<void>;
  /** The directory the server's own directory is made in (default: the system's temporary directory). */
  parent?: string;
  /** Where a copy of the binaries goes when the server's user cannot read them (default: the server's directory). */
  binaries?: string;
  /** Whether the postmaster outlives the process that started it (its own process group, not waited for). */
  detached?: boolean;
}

/** A PostgreSQL server started by `startPostgres`. */
export interface PostgresServer {
  /** `postgres://postgres:password@127.0.0.1:port/postgres`. */
  readonly url: string;
  readonly port: number;
  readonly password: string;
  /** The server's version, such as `18.4`. */
  readonly version: string;
  /** The server's own directory: its data directory, its log (postgres.log), a copy of the binaries if one was needed. */
  readonly dir: string;
  /** The data directory (owned by the server's user). */
  readonly dataDir: string;
  /** The directory of `postgres`, `initdb` and `pg_ctl` the server runs from. */
  readonly binDir: string;
  /** The postmaster's process id while it runs (its backends are its children), else undefined. */
  pid(): number | undefined;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** A fast shutdown: sessions are cut, as when an administrator stops it. */
  stop(): Promise<void>;
  /** SIGKILLs the postmaster and every backend at once; the next start runs crash recovery. */
  kill(): Promise<void>;
  /** Stops it if it runs and removes its directory. */
  close(): Promise<void>;
}

/** The major asked for: `version` when given, else PLANT_STORE_TEST_POSTGRES_VERSION, else 18. */
export function majorFor(version?: number): PostgresMajor;
/** Starts a PostgreSQL server in a new directory on a free port of 127.0.0.1. */
export function startPostgres(options?: StartOptions): Promise<PostgresServer>;
/** A new directory for servers below `parent` (default: the temporary directory), readable by the server's user. */
export function serverDirectory(parent?: string): string;
/** Stops every server below `dir` (PostgreSQL data directories, PgBouncer pid files) and removes `dir`. */
export function removeServers(dir: string): Promise<void>;

/** The pid files named `names` in `dir` and its folders (three levels down at most), with the pid each holds. */
export function pidFilesBelow(dir: string, names: readonly string[]): { file: string; pid: number }[];
/** Every process, from /proc (Linux): id, parent's id, CPU clock ticks (user, system, reaped children's user and system). */
export function processTable(): { pid: number; ppid: number; ticks: number[] }[];
/** The processes whose parent is `parent`, from /proc (Linux). */
export function childrenOf(parent: number): number[];
/** A TCP port of 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number>;
