// The store's types: the pool it borrows or makes, its options, its figures and the store itself. A
// leaf: the store and its internal modules import these, and this file imports nothing of the package.
import type { PlantStore } from '@plant-store/core';

/**
 * A connection checked out of a {@link PostgresPool}: what the store calls on it (a `pg.PoolClient` fits).
 * The store listens to its notices while its statements run: a WARNING that the wait for the
 * synchronous standby was cancelled makes the insert a 503.
 */
export interface PostgresPoolClient {
  query<Row>(config: { name?: string; text: string; values?: unknown[]; types?: unknown }): Promise<{ rows: Row[] }>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'notice', listener: (notice: PostgresNotice) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'notice', listener: (notice: PostgresNotice) => void): unknown;
}

/** A notice or warning the server sent on a connection (`pg`'s NoticeMessage): what the store reads of it. */
export interface PostgresNotice {
  /** The SQLSTATE (`01000` for a warning of no other class). */
  readonly code?: string | undefined;
  /** The text, in the server's `lc_messages`. */
  readonly message?: string | undefined;
  /** The function of PostgreSQL's source that sent it, never translated. */
  readonly routine?: string | undefined;
}

/** A pool of connections the caller owns, such as a `pg.Pool`: the store borrows it and never ends it. */
export interface PostgresPool {
  connect(): Promise<PostgresPoolClient>;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  /** `pg.Pool`'s options: `max` bounds the statements in flight, `host` and `port` name it in messages. */
  readonly options?: { readonly max?: number; readonly host?: string; readonly port?: number };
}

/** A pool the store made (a `pg.Pool`, or one over a host list), which it ends on close. Not exported by the package. */
export type OwnedPool = PostgresPool & { end(): Promise<void> };

/** Options of {@link createPostgresStore}. Every time is in milliseconds. */
export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:port/database?sslmode=verify-full`. What it leaves out comes from the
   * PG* environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT,
   * PGCONNECT_TIMEOUT, PGAPPNAME, …), then libpq's defaults, as psql resolves them. libpq's
   * keyword/value form and host lists (`postgres://u:p@db1,db2/plants?target_session_attrs=read-write`)
   * are read as psql reads them: the store follows a failover across the listed servers.
   */
  readonly connectionString?: string;
  /** A pool the caller owns (a `pg.Pool`), instead of a connection string: `close()` leaves it open. */
  readonly pool?: PostgresPool;
  /** The table's schema. Default `'public'`. */
  readonly schema?: string;
  /** The table. Default `'plants'`. */
  readonly table?: string;
  /** Connections in the pool: the insert statements in flight, their follow-up reads and health checks. Default 10. */
  readonly poolSize?: number;
  /**
   * Insert statements (group commits) in flight at once; inserts that arrive meanwhile wait and go
   * together in the next one. Fewer, larger statements cost the database far less per create than
   * many small ones, so the default is small. Default 2, at most `poolSize`.
   */
  readonly batchesInFlight?: number;
  /**
   * The server's `statement_timeout` for the store's statements; 0 for none. Default 5,000. Sent as a
   * start-up parameter; behind a pooler that refuses one (PgBouncer), set in each insert's transaction.
   */
  readonly statementTimeout?: number;
  /** The wait for one connection to open; 0 for none. Default 5,000, or `connect_timeout` / PGCONNECT_TIMEOUT. */
  readonly connectTimeout?: number;
  /** How long `createPostgresStore` waits for the database to accept a connection at start. Default 10,000. */
  readonly startTimeout?: number;
  /** A PEM file of the CA certificates to check the server against (libpq's `sslrootcert`). */
  readonly caFile?: string;
  /**
   * Create the table (and its schema) when absent, and add the nullable columns of the plant's optional
   * fields it lacks (a newer spec's: a rolling upgrade). `false` where the store has no DDL rights: the
   * table must then have them, and the store refuses to start naming the statement that adds them. Default true.
   */
  readonly createTable?: boolean;
  /**
   * Name the store's statements so each connection parses them once (`true`), or parse each one every
   * time (`false`). `'auto'`: named, unless the store finds a pooler in front of the database (it
   * refuses the statement timeout as a start-up parameter, or answers 42P05/26000 for a named
   * statement, as PgBouncer in transaction mode does), then unnamed from there on. Default `'auto'`.
   */
  readonly preparedStatements?: boolean | 'auto';
}

/** The connection pool's figures, for metrics. */
export interface PostgresPoolStats {
  /** Connections open. */
  readonly total: number;
  /** Open connections waiting for work. */
  readonly idle: number;
  /** Connections running a statement. */
  readonly inUse: number;
  /** Requests for a connection waiting for one. */
  readonly waiting: number;
  /** The pool's bound on connections. */
  readonly max: number;
}

/** The group commit's counters since start. */
export interface PostgresStoreStats {
  /** Insert statements sent: far fewer than `rows` under concurrency. */
  readonly statements: number;
  /** Plants those statements carried (an id inserted at once by several callers counts once). */
  readonly rows: number;
  /** Statements in flight now. */
  readonly inFlight: number;
  /** Plants waiting for a statement now. */
  readonly queued: number;
}

/** A {@link PlantStore} on a PostgreSQL table, shared by any number of stores and servers. */
export interface PostgresStore extends PlantStore {
  /** Finishes the inserts in flight, then ends the pool (one the caller passed stays open). Safe to call twice. */
  close(): Promise<void>;
  /** The pool's connections: in use, idle, and requests waiting. */
  poolStats(): PostgresPoolStats;
  /** Statements and rows since start, and the work in flight. */
  stats(): PostgresStoreStats;
  /** The table, as `"schema"."table"`. */
  readonly table: string;
  /** The database, as `host:port`. */
  readonly target: string;
}
