// The table at start: read its shape from the catalog, create it (and its schema) when absent and
// allowed, add the nullable columns of a newer plant shape when allowed, refuse any other difference,
// and check that the store may insert and select.
import { PostgresStoreError } from '../postgres-store-error.js';
import type { PostgresPool, PostgresPoolClient } from '../types.js';
import { withClient } from './checkout.js';
import { describe } from './failures.js';
import type { CheckedOptions } from './options.js';
import type { Column, PlantColumns } from './plant-columns.js';
import {
  addColumnsStatement,
  compareShape,
  createTableStatement,
  type ShapeRow,
  shapeOf,
  TABLE_SHAPE_QUERY,
  type TableShape,
} from './schema.js';

/** Where the table is, whether the store may create it (or add columns), and the columns it must have. */
export type TablePlace = Pick<CheckedOptions, 'schema' | 'tableName' | 'quotedSchema' | 'table' | 'createTable'> & {
  /** `host:port`, for messages. */
  readonly target: string;
  readonly columns: PlantColumns;
};

/**
 * How long the statement that adds columns waits for its lock. ALTER TABLE needs the table to itself,
 * and while it waits for a transaction that holds the table, every insert (an older server's too)
 * queues behind it: so it gives up soon, well within the inserts' statement timeout, and the start
 * tries again.
 */
const DDL_LOCK_TIMEOUT = 1_000;
/** The first key of the advisory lock that orders stores adding columns to one table (the second is the table's). */
const LOCK_SPACE = 0x706c6e74; // 'plnt'

/**
 * The table stayed locked past {@link DDL_LOCK_TIMEOUT}: a lock not available (55P03), which the start
 * tries again until its wait is over, then reports with this message.
 */
export class TableLockedError extends Error {
  override readonly name = 'TableLockedError';
  readonly code = '55P03';
}

/** A statement on one line, to quote in a message. */
const oneLine = (statement: string) => statement.replace(/\s*\n\s*/g, ' ');

/** Reads the table's shape, creates the table or adds columns when needed and allowed, and refuses any other shape. */
export function prepareTable(pool: PostgresPool, place: TablePlace): Promise<void> {
  return withClient(pool, async (client) => {
    const { table, target, columns } = place;
    // At most: create the table, add columns, then find the shape complete.
    for (let pass = 0; ; pass++) {
      const shape = await readShape(client, place);
      if (shape === undefined) {
        if (!place.createTable) {
          throw new PostgresStoreError(
            'schema',
            target,
            `the table ${table} does not exist at ${target}, and createTable is false: create it (${oneLine(createTableStatement(table, columns))}), or allow createTable`,
          );
        }
        if (pass > 0)
          throw new PostgresStoreError(
            'schema',
            target,
            `the table ${table} at ${target} was created but cannot be read back`,
          );
        await createSchemaAndTable(client, place);
        continue;
      }
      const { refusals, missing } = compareShape(shape, columns, table);
      if (refusals.length > 0) {
        throw new PostgresStoreError(
          'schema',
          target,
          `the table ${table} at ${target} is not a plant table: ${refusals.join('; ')}. The store only ever adds a missing nullable column: fix the rest by hand, or point the store at another table`,
        );
      }
      if (missing.length === 0) break;
      if (!place.createTable) {
        throw new PostgresStoreError(
          'schema',
          target,
          `the table ${table} at ${target} lacks ${columnList(missing)} of the plant's optional fields, and createTable is false: add ${missing.length === 1 ? 'it' : 'them'} (${addColumnsStatement(table, missing)}), or allow createTable`,
        );
      }
      if (pass > 1)
        throw new PostgresStoreError(
          'schema',
          target,
          `${columnList(missing)} added to ${table} at ${target} cannot be read back`,
        );
      await addColumns(client, place, missing);
    }
    const rights = await client.query<{ insert: boolean; select: boolean }>({
      text: `SELECT has_table_privilege(c.oid, 'INSERT') AS insert, has_table_privilege(c.oid, 'SELECT') AS select FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
      values: [place.schema, place.tableName],
    });
    const missing = ['insert', 'select'].filter((right) => rights.rows[0]?.[right as 'insert' | 'select'] !== true);
    if (missing.length > 0) {
      throw new PostgresStoreError(
        'refused',
        target,
        `the database user may not ${missing.map((m) => m.toUpperCase()).join(' or ')} on ${table} at ${target}: GRANT SELECT, INSERT ON ${table} TO it`,
      );
    }
  });
}

async function readShape(client: PostgresPoolClient, place: TablePlace): Promise<TableShape | undefined> {
  return shapeOf(
    (await client.query<ShapeRow>({ text: TABLE_SHAPE_QUERY, values: [place.schema, place.tableName] })).rows,
  );
}

/** `column "a"`, or `columns "a", "b"`. */
function columnList(columns: readonly Column[]): string {
  const names = columns.map((column) => column.quoted).join(', ');
  return columns.length === 1 ? `column ${names}` : `columns ${names}`;
}

/**
 * Adds the nullable columns the table lacks, in one transaction. Stores starting at once take turns on
 * an advisory lock, and each reads the shape again under it: the first adds the columns, the others
 * find them there. Both waits, the advisory lock's and the table's, end at the lock timeout.
 */
async function addColumns(client: PostgresPoolClient, place: TablePlace, lacking: readonly Column[]): Promise<void> {
  const { table, target } = place;
  let statement = addColumnsStatement(table, lacking);
  await client.query({ text: 'BEGIN' });
  try {
    await client.query({ text: `SET LOCAL lock_timeout = ${DDL_LOCK_TIMEOUT}` });
    await client.query({ text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))', values: [LOCK_SPACE, table] });
    const shape = await readShape(client, place);
    const missing = shape === undefined ? [] : compareShape(shape, place.columns, table).missing;
    if (missing.length > 0) {
      statement = addColumnsStatement(table, missing);
      await client.query({ text: statement });
    }
    await client.query({ text: 'COMMIT' });
  } catch (error) {
    await client.query({ text: 'ROLLBACK' }).catch(() => undefined);
    const code = (error as { code?: unknown }).code;
    if (code === '55P03') {
      throw new TableLockedError(
        `the table ${table} at ${target} stayed locked by other sessions past the ${DDL_LOCK_TIMEOUT} ms lock timeout of the statement that adds the plant's new columns, each time the store tried (a long transaction holds it: pg_locks shows which): run it once they are done (${statement}), or start the store again`,
        { cause: error },
      );
    }
    if (code === '42501') {
      throw new PostgresStoreError(
        'refused',
        target,
        `the table ${table} at ${target} lacks ${columnList(lacking)} of the plant's optional fields, and the database user may not add ${lacking.length === 1 ? 'it' : 'them'} (${describe(error)}): have the table's owner run ${statement}`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function createSchemaAndTable(client: PostgresPoolClient, place: TablePlace): Promise<void> {
  const schemas = await client.query<{ found: boolean }>({
    text: 'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found',
    values: [place.schema],
  });
  // Asked first: CREATE SCHEMA IF NOT EXISTS needs the right to create even when the schema exists.
  if (schemas.rows[0]?.found !== true)
    await createIfAbsent(client, `CREATE SCHEMA IF NOT EXISTS ${place.quotedSchema}`, place);
  await createIfAbsent(client, createTableStatement(place.table, place.columns), place);
}

/** Runs a CREATE … IF NOT EXISTS, for which another store starting at the same moment may win the race. */
async function createIfAbsent(client: PostgresPoolClient, statement: string, place: TablePlace): Promise<void> {
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
        place.target,
        `the table ${place.table} does not exist at ${place.target}, and the database user may not create it (${describe(error)}): create it (${oneLine(createTableStatement(place.table, place.columns))}), and pass createTable: false`,
        { cause: error },
      );
    }
    throw error;
  }
}
