import { createHash } from 'node:crypto';
import {
  PLANT_FIELDS,
  type PlantField,
  StoreUnavailableError,
  type StoredPlant,
  toStoredPlant,
} from '@plant-store/core';
import pg from 'pg';
import { withClient } from './internal/checkout.js';
import { describe, isUnavailable } from './internal/failures.js';
import { GroupCommit } from './internal/group-commit.js';
import { LostStatements } from './internal/lost-statements.js';
import { checkOptions } from './internal/options.js';
import { startDatabase } from './internal/start.js';
import { formatMs, TIMED_OUT, withTimeout } from './internal/timeout.js';
import { PostgresStoreError } from './postgres-store-error.js';
import type { PostgresStore, PostgresStoreOptions } from './types.js';

/** int8 (oid 20) as its decimal text: an id never passes through a JS number. */
const TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (text: string) => text : pg.types.getTypeParser(oid, format),
};

/** How long past the statement timeout an insert waits for the server's own cancellation. */
const ANSWER_MARGIN = 250;
/** The health check's bound: a readiness probe must not hang on a database that does not answer. */
const HEALTH_TIMEOUT = 2_000;

/**
 * Connects to PostgreSQL and resolves to a store on its plant table, once a connection is open and the
 * table is checked (created when absent, or given the nullable columns of the plant's fields it lacks,
 * unless `createTable` is false). Its columns are the plant's fields, as the service's OpenAPI document has them. Any
 * number of stores, in any number of processes, may share one table: each id has one winner across
 * them, and servers of an older and a newer plant shape may share it during a rolling upgrade.
 *
 * `insert` resolves only after the plant's statement has committed; inserts that arrive together go
 * to the database as one statement. A failure of the database (unreachable, restarting, a statement
 * timeout, a connection lost mid-commit) rejects with the core's `StoreUnavailableError`, which the
 * app answers with 503; the pool reconnects by itself. Any other SQLSTATE rejects with a
 * {@link PostgresStoreError} of code `statement` naming it (the app's 500).
 *
 * Rejects with a {@link PostgresStoreError}: `unreachable` when no connection opens within
 * `startTimeout`, `refused` at once when the database refuses the store (a wrong password, an unknown
 * database or role, a certificate that does not verify), `schema` for a table of another shape (the
 * message names each difference and the statement that fixes it).
 * Bad options throw a TypeError or RangeError.
 *
 * @example
 * const store = await createPostgresStore({ connectionString: process.env.DATABASE_URL });
 * await store.insert({ id: 9007199254740993n, name: 'Fern' }); // { created: true }: committed
 * await store.close();
 */
export function createPostgresStore(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  return openPostgresStore(options);
}

/** Options of {@link openPostgresStore}: the public ones, and the plant's shape. */
export interface ShapedStoreOptions extends PostgresStoreOptions {
  /**
   * The fields of the plants the store keeps, instead of the spec's (PLANT_FIELDS): a test's seam, to run
   * an older or a newer server's store. Its plants are taken as they are, for the core's checks
   * (toStoredPlant) are the spec's: they must already be stored plants of that shape.
   */
  readonly fields?: readonly PlantField[];
}

/**
 * {@link createPostgresStore} for plants of any shape. Not exported by the package: the store serves
 * the spec's plants, and the tests of a rolling upgrade run two shapes on one table.
 */
export async function openPostgresStore(options: ShapedStoreOptions): Promise<PostgresStore> {
  const { fields, ...rest } = options;
  const check = fields === undefined ? toStoredPlant : (plant: unknown) => plant as StoredPlant;
  const checked = checkOptions(rest, fields ?? PLANT_FIELDS);
  const { table, columns, poolSize, statementTimeout, preparedStatements } = checked;
  const started = await startDatabase(checked);
  const { pool, target, behindPooler } = started;

  // Named after the table and the columns, the statements' text: two stores of other shapes on one
  // table never meet one name with two texts, on a pool they share.
  const digest = createHash('sha256')
    .update(table)
    .update(columns.all.map((column) => `${column.quoted} ${column.type}`).join(', '))
    .digest('hex')
    .slice(0, 16);
  const commit = new GroupCommit({
    pool,
    table,
    collection: `${checked.schema}.${checked.tableName}`,
    columns,
    maxInFlight: Math.min(checked.batchesInFlight, checked.callerPool?.options?.max ?? poolSize),
    statementNames:
      preparedStatements === true || (preparedStatements === 'auto' && !behindPooler)
        ? { insert: `plant_store_insert_${digest}`, select: `plant_store_select_${digest}` }
        : undefined,
    unnamedOnTrouble: preparedStatements === 'auto',
    // A pooler in transaction mode hands each transaction to any server connection: the timeout goes
    // with each transaction, since a session's setting would stay on one server connection.
    transactionTimeout: behindPooler && statementTimeout > 0 ? statementTimeout : undefined,
    target,
    types: TYPES,
    // Past the insert's own bound, so that the server's cancellation, which keeps the connection, comes first.
    slotTimeout: statementTimeout > 0 ? statementTimeout + 2 * ANSWER_MARGIN : 0,
    lostStatements: new LostStatements(pool),
  });
  const healthSql = `SELECT 1 FROM ${table} LIMIT 0`;
  let closing: Promise<void> | undefined;
  const closedError = () =>
    new PostgresStoreError('closed', target, `the PostgreSQL store on ${table} at ${target} is closed`);

  return {
    table,
    target,
    async insert(plant) {
      const stored = check(plant);
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
        await withTimeout(
          withClient(pool, (client) => client.query({ text: healthSql, types: TYPES })),
          HEALTH_TIMEOUT,
        );
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
      const total = pool.totalCount;
      const idle = pool.idleCount;
      return {
        total,
        idle,
        inUse: total - idle,
        waiting: pool.waitingCount,
        max: pool.options?.max ?? poolSize,
      };
    },
    stats: () => commit.stats(),
    close() {
      closing ??= (async () => {
        await commit.drained();
        await started.end();
      })();
      return closing;
    },
  };
}
