// The options of createPostgresStore, checked and completed with their defaults before anything
// connects: a bad option throws a TypeError or RangeError that names it.
import type { PlantField } from '@plant-store/core';
import type { PostgresPool, PostgresStoreOptions } from '../types.js';
import { quoteIdentifier } from './identifier.js';
import { type PlantColumns, plantColumns } from './plant-columns.js';

export const DEFAULTS = {
  poolSize: 10,
  batchesInFlight: 2,
  statementTimeout: 5_000,
  connectTimeout: 5_000,
  startTimeout: 10_000,
};

/** The options, checked; every time in milliseconds. */
export interface CheckedOptions {
  /** A pool the caller owns, which the store borrows and never ends. */
  readonly callerPool: PostgresPool | undefined;
  readonly connectionString: string | undefined;
  readonly caFile: string | undefined;
  /** The schema and the table, as given. */
  readonly schema: string;
  readonly tableName: string;
  /** `"schema"`. */
  readonly quotedSchema: string;
  /** `"schema"."table"`. */
  readonly table: string;
  readonly poolSize: number;
  readonly batchesInFlight: number;
  readonly statementTimeout: number;
  readonly startTimeout: number;
  /** The option as given: when undefined, connect_timeout / PGCONNECT_TIMEOUT, then the default, decide. */
  readonly connectTimeout: number | undefined;
  readonly createTable: boolean;
  readonly preparedStatements: boolean | 'auto';
  /** The table's columns, from the plant's shape. */
  readonly columns: PlantColumns;
}

/** `options`, checked and with their defaults, for plants of `fields`. */
export function checkOptions(options: PostgresStoreOptions, fields: readonly PlantField[]): CheckedOptions {
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
  const poolSize = integerOption(options.poolSize, 'poolSize', 1) ?? DEFAULTS.poolSize;
  const batchesInFlight = integerOption(options.batchesInFlight, 'batchesInFlight', 1) ?? DEFAULTS.batchesInFlight;
  const statementTimeout = integerOption(options.statementTimeout, 'statementTimeout', 0) ?? DEFAULTS.statementTimeout;
  const startTimeout = integerOption(options.startTimeout, 'startTimeout', 0) ?? DEFAULTS.startTimeout;
  const connectTimeout = integerOption(options.connectTimeout, 'connectTimeout', 0);
  const createTable = options.createTable ?? true;
  const preparedStatements = options.preparedStatements ?? 'auto';
  if (preparedStatements !== true && preparedStatements !== false && preparedStatements !== 'auto')
    throw new TypeError(`preparedStatements must be true, false or 'auto'; got ${String(preparedStatements)}`);
  return {
    callerPool,
    connectionString,
    caFile,
    schema,
    tableName,
    quotedSchema,
    table,
    poolSize,
    batchesInFlight,
    statementTimeout,
    startTimeout,
    connectTimeout,
    createTable,
    preparedStatements,
    columns: plantColumns(fields),
  };
}

/** What the integer options count, for messages; the others are milliseconds. */
const UNITS: Record<string, string> = { poolSize: 'connections', batchesInFlight: 'statements' };

/** An integer option, `min` or more; undefined when not given. */
function integerOption(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(
      `${name} must be a whole number of ${UNITS[name] ?? 'milliseconds'}, ${min} or more; got ${String(value)}`,
    );
  }
  return value;
}
