import { createHash } from 'node:crypto';
import { StoreUnavailableError, toStoredPlant, type PlantStore } from '@plant-store/core';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { resolveConnectionSettings, type ConnectionSettings } from './internal/connection-settings.js';
import { FailoverPool } from './internal/failover.js';
import { describe, isFatalAtStart, isUnavailable, refusedStartupParameter } from './internal/failures.js';
import { GroupCommit } from './internal/group-commit.js';
import { LostStatements } from './internal/lost-statements.js';
import {
  createTableStatement,
  quoteIdentifier,
  shapeDifferences,
  shapeOf,
  TABLE_SHAPE_QUERY,
} from './internal/schema.js';
import { PostgresStoreError } from './postgres-store-error.js';

/** A connection checked out of a {@link PostgresPool}: what the store calls on it (a `pg.PoolClient` fits). */
export interface PostgresPoolClient {
  query<Row>(config: { name?: string; text: string; values?: unknown[]; types?: unknown }): Promise<{ rows: Row[] }>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
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
  /** Create the table (and its schema) when absent. `false` where the store has no DDL rights: the table must then exist. Default true. */
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

/** int8 (oid 20) as its decimal text: an id never passes through a JS number. */
const TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (text: string) => text : pg.types.getTypeParser(oid, format),
};

const DEFAULTS = {
  poolSize: 10,
  batchesInFlight: 2,
  statementTimeout: 5_000,
  connectTimeout: 5_000,
  startTimeout: 10_000,
};
/** How long past the statement timeout an insert waits for the server's own cancellation. */
const ANSWER_MARGIN = 250;
/** Idle time of a connection before TCP keepalive probes begin. */
const KEEPALIVE_IDLE = 10_000;
/** The health check's bound: a readiness probe must not hang on a database that does not answer. */
const HEALTH_TIMEOUT = 2_000;

/**
 * Connects to PostgreSQL and resolves to a store on its plant table, once a connection is open and the
 * table is checked (created when absent, unless `createTable` is false). Any number of stores, in any
 * number of processes, may share one table: each id has one winner across them.
 *
 * `insert` resolves only after the plant's statement has committed; inserts that arrive together go
 * to the database as one statement. A failure of the database (unreachable, restarting, a statement
 * timeout, a connection lost mid-commit) rejects with the core's `StoreUnavailableError`, which the
 * app answers with 503; the pool reconnects by itself. Any other SQLSTATE rejects with a
 * {@link PostgresStoreError} of code `statement` naming it (the app's 500).
 *
 * Rejects with a {@link PostgresStoreError}: `unreachable` when no connection opens within
 * `startTimeout`, `refused` at once when the database refuses the store (a wrong password, an unknown
 * database or role, a certificate that does not verify), `schema` for a table of another shape.
 * Bad options throw a TypeError or RangeError.
 *
 * @example
 * const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.insert({ id: 9007199254740993n, name: 'Fern' }); // { created: true }: committed
 * await store.close();
 */
export async function createPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const { pool: callerPool, connectionString, caFile } = options;
  if (callerPool !== undefined && (connectionString !== undefined || caFile !== undefined)) {
    throw new TypeError(
      'pass either pool or connectionString (and caFile), not both: a pool of your own is already connected',
    );
  }
  const schema = options.schema ?? 'public';
  const tableName = options.table ?? 'plants';
  const quotedSchema = quoteIdentifier(schema, 'schema');
  const table = `${quotedSchema}.${quoteIdentifier(tableName, 'table')}`;
  const poolSize = count(options.poolSize, 'poolSize', DEFAULTS.poolSize, 1);
  const batchesInFlight = count(options.batchesInFlight, 'batchesInFlight', DEFAULTS.batchesInFlight, 1);
  const statementTimeout = count(options.statementTimeout, 'statementTimeout', DEFAULTS.statementTimeout, 0);
  const startTimeout = count(options.startTimeout, 'startTimeout', DEFAULTS.startTimeout, 0);
  const explicitConnectTimeout =
    options.connectTimeout === undefined ? undefined : count(options.connectTimeout, 'connectTimeout', 0, 0);
  const createTable = options.createTable ?? true;
  const prepared = options.preparedStatements ?? 'auto';
  if (prepared !== true && prepared !== false && prepared !== 'auto')
    throw new TypeError(`preparedStatements must be true, false or 'auto'; got ${String(prepared)}`);

  let settings: ConnectionSettings | undefined;
  let pool: PostgresPool;
  let target: string;
  let connectTimeout = explicitConnectTimeout ?? DEFAULTS.connectTimeout;
  if (callerPool !== undefined) {
    pool = callerPool;
    target = `${callerPool.options?.host ?? 'localhost'}:${callerPool.options?.port ?? 5432}`;
  } else {
    settings = resolveConnectionSettings({ connectionString, caFile });
    target = settings.target;
    connectTimeout = explicitConnectTimeout ?? settings.connectTimeout ?? DEFAULTS.connectTimeout;
    pool = createPool(settings, { poolSize, statementTimeout, connectTimeout, pooled: false }, settings.ssl ?? false);
  }

  const connected = await waitForDatabase(pool, settings, {
    target,
    table,
    quotedSchema,
    schema,
    tableName,
    createTable,
    startTimeout,
    poolSize,
    statementTimeout,
    connectTimeout,
  });
  pool = connected.pool;
  const { pooled } = connected;

  const digest = createHash('sha256').update(table).digest('hex').slice(0, 16);
  const commit = new GroupCommit({
    pool,
    table,
    maxInFlight: Math.min(batchesInFlight, callerPool?.options?.max ?? poolSize),
    statementNames:
      prepared === true || (prepared === 'auto' && !pooled)
        ? { insert: `plant_store_insert_${digest}`, select: `plant_store_select_${digest}` }
        : undefined,
    unnamedOnTrouble: prepared === 'auto',
    // A pooler in transaction mode hands each transaction to any server connection: the timeout goes
    // with each transaction, since a session's setting would stay on one server connection.
    transactionTimeout: pooled && statementTimeout > 0 ? statementTimeout : undefined,
    target,
    types: TYPES,
    // Past the insert's own bound, so that the server's cancellation, which keeps the connection, comes first.
    slotTimeout: statementTimeout > 0 ? statementTimeout + 2 * ANSWER_MARGIN : 0,
    lostStatements: new LostStatements(pool),
  });
  const healthSql = `SELECT 1 FROM ${table} LIMIT 0`;
  const livePool = pool;
  let closing: Promise<void> | undefined;
  const closedError = () =>
    new PostgresStoreError('closed', target, `the PostgreSQL store on ${table} at ${target} is closed`);

  return {
    table,
    target,
    async insert(plant) {
      const stored = toStoredPlant(plant);
      if (closing !== undefined) throw closedError();
      if (statementTimeout === 0) return commit.insert(stored);
      // An insert whose statement's answer is lost (a cut network, where the server's timeout cannot
      // reach the store) answers within the statement timeout all the same; a moment later than the
      // server's, whose cancellation says more when it can arrive.
      try {
        return await withTimeout(commit.insert(stored), statementTimeout + ANSWER_MARGIN);
      } catch (error) {
        if (error !== TIMED_OUT) throw error;
        throw new StoreUnavailableError(
          `PostgreSQL at ${target} did not acknowledge the insert within the statement timeout (${formatMs(statementTimeout)}), so whether it committed is unknown; a retry replays or creates it`,
        );
      }
    },
    async checkHealth() {
      if (closing !== undefined) throw closedError();
      try {
        await withTimeout(query(livePool, { text: healthSql, types: TYPES }), HEALTH_TIMEOUT);
      } catch (error) {
        if (error === TIMED_OUT)
          throw new StoreUnavailableError(`PostgreSQL at ${target} did not answer within ${formatMs(HEALTH_TIMEOUT)}`);
        if (isUnavailable(error))
          throw new StoreUnavailableError(`PostgreSQL at ${target} is unavailable: ${describe(error)}`, {
            cause: error,
          });
        throw error;
      }
    },
    poolStats() {
      const total = livePool.totalCount;
      const idle = livePool.idleCount;
      return {
        total,
        idle,
        inUse: total - idle,
        waiting: livePool.waitingCount,
        max: livePool.options?.max ?? poolSize,
      };
    },
    stats: () => commit.stats(),
    close() {
      closing ??= (async () => {
        await commit.drained();
        if (livePool !== callerPool) await (livePool as OwnedPool).end();
      })();
      return closing;
    },
  };
}

/** A pool the store made, which it ends on close. */
type OwnedPool = PostgresPool & { end(): Promise<void> };

/**
 * `pooled`: a pooler is in front of the database, which refuses the statement timeout as a start-up
 * parameter (PgBouncer, unless told to ignore it); the store then sets it in each transaction.
 */
function createPool(
  settings: ConnectionSettings,
  sizes: { poolSize: number; statementTimeout: number; connectTimeout: number; pooled: boolean },
  ssl: ConnectionOptions | false,
): OwnedPool {
  if (settings.hosts.length > 1 || settings.targetSessionAttrs !== 'any') {
    return new FailoverPool({
      hosts: settings.hosts,
      targetSessionAttrs: settings.targetSessionAttrs,
      max: sizes.poolSize,
      checkTimeout: sizes.connectTimeout || DEFAULTS.connectTimeout,
      open: (host) => createPool({ ...settings, ...host, hosts: [host], targetSessionAttrs: 'any' }, sizes, ssl),
    });
  }
  const pool = new pg.Pool({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    ...(settings.password !== undefined && { password: settings.password }),
    database: settings.database,
    ssl,
    application_name: settings.applicationName,
    ...(settings.options !== undefined && { options: settings.options }),
    max: sizes.poolSize,
    connectionTimeoutMillis: sizes.connectTimeout,
    ...(sizes.statementTimeout > 0 && {
      ...(!sizes.pooled && { statement_timeout: sizes.statementTimeout }),
      // The server's timeout cannot fire when the server itself stops answering: the driver's, a little
      // later, frees the connection then.
      query_timeout: sizes.statementTimeout + 2_000,
    }),
    keepAlive: true,
    // An idle connection whose server vanished without a word (a cut network) is found by TCP keepalive
    // probes after this, instead of the OS's two hours.
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE,
    idleTimeoutMillis: 30_000,
  });
  // A connection that dies while idle (the database restarts) is dropped by the pool; the next
  // statement opens a new one. Without a listener the error would end the process.
  pool.on('error', () => undefined);
  return pool as unknown as OwnedPool;
}

interface StartOptions {
  readonly target: string;
  /** `"schema"."table"`. */
  readonly table: string;
  /** `"schema"`. */
  readonly quotedSchema: string;
  readonly schema: string;
  readonly tableName: string;
  readonly createTable: boolean;
  readonly startTimeout: number;
  readonly poolSize: number;
  readonly statementTimeout: number;
  readonly connectTimeout: number;
}

/** The pool the start settled on, and whether a pooler is in front of the database. */
interface Connected {
  pool: PostgresPool;
  pooled: boolean;
}

/**
 * Tries to connect and check the table until `startTimeout` has passed, then gives up with the last
 * reason; what waiting cannot cure (a wrong password, an unknown database or role, a certificate that
 * does not verify) gives up at once. Resolves to the pool to use: for sslmode=prefer, one without TLS
 * when the server has none; behind a pooler that refuses the statement timeout as a start-up
 * parameter, one that does not send it. A pool the store made (`settings` given) is ended when it
 * gives up.
 */
async function waitForDatabase(
  pool: PostgresPool,
  settings: ConnectionSettings | undefined,
  start: StartOptions,
): Promise<Connected> {
  const current: Connected = { pool, pooled: false };
  try {
    await connectAndPrepare(current, settings, start);
    return current;
  } catch (error) {
    if (settings !== undefined) await (current.pool as OwnedPool).end().catch(() => undefined);
    throw error;
  }
}

async function connectAndPrepare(
  current: Connected,
  settings: ConnectionSettings | undefined,
  start: StartOptions,
): Promise<void> {
  const deadline = Date.now() + start.startTimeout;
  let pause = 100;
  let lastError: unknown;
  let tls = settings?.ssl !== undefined;
  for (;;) {
    try {
      const remaining = deadline - Date.now();
      // Each attempt is also bounded by the pool's connect timeout; the last one by what is left.
      const attempt = prepareTable(current.pool, start);
      await (remaining > 0 ? withTimeout(attempt, remaining) : attempt);
      return;
    } catch (error) {
      if (error instanceof PostgresStoreError) throw error;
      const late = error === TIMED_OUT;
      const message = (error as { message?: unknown }).message;
      const preferPlain =
        tls &&
        settings?.sslMode === 'prefer' &&
        typeof message === 'string' &&
        message.startsWith('The server does not support SSL');
      const pooler =
        settings !== undefined && !current.pooled && refusedStartupParameter(error) === 'statement_timeout';
      if (settings !== undefined && (preferPlain || pooler)) {
        // libpq's prefer: TLS when the server offers it, a plain connection when it does not.
        if (preferPlain) tls = false;
        if (pooler) current.pooled = true;
        await (current.pool as OwnedPool).end().catch(() => undefined);
        current.pool = createPool(
          settings,
          {
            poolSize: start.poolSize,
            statementTimeout: start.statementTimeout,
            connectTimeout: start.connectTimeout,
            pooled: current.pooled,
          },
          tls ? (settings.ssl ?? false) : false,
        );
        continue;
      }
      if (!late && isFatalAtStart(error)) {
        throw new PostgresStoreError(
          'refused',
          start.target,
          `PostgreSQL at ${start.target} refused the plant store: ${describe(error)}`,
          { cause: error },
        );
      }
      if (!late) lastError = error;
      const left = deadline - Date.now();
      if (late || left <= 0) {
        const reason = lastError === undefined ? 'no answer' : describe(lastError);
        throw new PostgresStoreError(
          'unreachable',
          start.target,
          `PostgreSQL at ${start.target} did not accept a connection within ${formatMs(start.startTimeout)}: ${reason}`,
          {
            cause: lastError,
          },
        );
      }
      // The last try comes at the deadline, so the whole wait is used.
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, 1_000);
    }
  }
}

/** Reads the table's shape, creates the table when absent and allowed, and refuses any other shape. */
async function prepareTable(pool: PostgresPool, start: StartOptions): Promise<void> {
  const client = await pool.connect();
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    const read = async () =>
      shapeOf(
        (await client.query<ShapeRow>({ text: TABLE_SHAPE_QUERY, values: [start.schema, start.tableName] })).rows,
      );
    let shape = await read();
    if (shape === undefined) {
      if (!start.createTable) {
        throw new PostgresStoreError(
          'schema',
          start.target,
          `the table ${start.table} does not exist at ${start.target}, and createTable is false: create it as the store's README shows (CREATE TABLE ${start.table} (id bigint PRIMARY KEY, name text NOT NULL, tag text)), or allow createTable`,
        );
      }
      await createSchemaAndTable(client, start);
      shape = await read();
    }
    if (shape === undefined)
      throw new PostgresStoreError(
        'schema',
        start.target,
        `the table ${start.table} at ${start.target} was created but cannot be read back`,
      );
    const differences = shapeDifferences(shape);
    if (differences.length > 0) {
      throw new PostgresStoreError(
        'schema',
        start.target,
        `the table ${start.table} at ${start.target} is not a plant table: ${differences.join('; ')}. The store never alters a table: fix it by hand, or point the store at another table`,
      );
    }
    const rights = await client.query<{ insert: boolean; select: boolean }>({
      text: `SELECT has_table_privilege(c.oid, 'INSERT') AS insert, has_table_privilege(c.oid, 'SELECT') AS select FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
      values: [start.schema, start.tableName],
    });
    const missing = ['insert', 'select'].filter((right) => rights.rows[0]?.[right as 'insert' | 'select'] !== true);
    if (missing.length > 0) {
      throw new PostgresStoreError(
        'refused',
        start.target,
        `the database user may not ${missing.map((m) => m.toUpperCase()).join(' or ')} on ${start.table} at ${start.target}: GRANT SELECT, INSERT ON ${start.table} TO it`,
      );
    }
  } catch (error) {
    if (!(error instanceof PostgresStoreError) && isUnavailable(error)) broken = error as Error;
    throw error;
  } finally {
    client.removeListener('error', ignore);
    client.release(broken);
  }
}

interface ShapeRow {
  kind: string;
  name: string | null;
  type: string | null;
  not_null: boolean | null;
  primary_key: string[] | null;
}

async function createSchemaAndTable(client: PostgresPoolClient, start: StartOptions): Promise<void> {
  const schemas = await client.query<{ found: boolean }>({
    text: 'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found',
    values: [start.schema],
  });
  // Asked first: CREATE SCHEMA IF NOT EXISTS needs the right to create even when the schema exists.
  if (schemas.rows[0]?.found !== true)
    await createIfAbsent(client, `CREATE SCHEMA IF NOT EXISTS ${start.quotedSchema}`, start);
  await createIfAbsent(client, createTableStatement(start.table), start);
}

/** Runs a CREATE … IF NOT EXISTS, for which another store starting at the same moment may win the race. */
async function createIfAbsent(client: PostgresPoolClient, statement: string, start: StartOptions): Promise<void> {
  try {
    await client.query({ text: statement });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // IF NOT EXISTS still races in the catalog: the other store created it first. The race shows as a
    // unique violation in a catalog, the table or schema existing, or the table's row type existing.
    if (code === '23505' || code === '42P07' || code === '42P06' || code === '42710') return;
    if (code === '42501') {
      throw new PostgresStoreError(
        'refused',
        start.target,
        `the table ${start.table} does not exist at ${start.target}, and the database user may not create it (${describe(error)}): create it as the store's README shows, and pass createTable: false`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** One statement on a connection of `pool`, released afterwards (thrown away if the connection failed). */
async function query(pool: PostgresPool, config: { text: string; types?: unknown }): Promise<void> {
  const client = await pool.connect();
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query(config);
  } catch (error) {
    if (isUnavailable(error)) broken = error as Error;
    throw error;
  } finally {
    client.removeListener('error', ignore);
    client.release(broken);
  }
}

/** What {@link withTimeout} rejects with when time runs out. */
const TIMED_OUT = new Error('no answer in time');

/** `promise`, or a rejection with {@link TIMED_OUT} after `ms`; what it brings late is released by its owner. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const UNITS: Record<string, string> = { poolSize: 'connections', batchesInFlight: 'statements' };

/** A whole number option, `fallback` when undefined. */
function count(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(
      `${name} must be a whole number of ${UNITS[name] ?? 'milliseconds'}, ${min} or more; got ${String(value)}`,
    );
  }
  return value;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function ignore(): void {}
