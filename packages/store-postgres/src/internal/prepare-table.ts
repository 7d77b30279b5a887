// The table at start: read its shape from the catalog, create it (and its schema) when absent and
// allowed, refuse any other shape, and check that the store may insert and select.
import { PostgresStoreError } from '../postgres-store-error.js';
import type { PostgresPool, PostgresPoolClient } from '../types.js';
import { withClient } from './checkout.js';
import { describe } from './failures.js';
import type { CheckedOptions } from './options.js';
import { createTableStatement, type ShapeRow, shapeDifferences, shapeOf, TABLE_SHAPE_QUERY } from './schema.js';

/** Where the table is, and whether the store may create it. */
export type TablePlace = Pick<CheckedOptions, 'schema' | 'tableName' | 'quotedSchema' | 'table' | 'createTable'> & {
  /** `host:port`, for messages. */
  readonly target: string;
};

/** A statement on one line, to quote in a message. */
const oneLine = (statement: string) => statement.replace(/\s*\n\s*/g, ' ');

/** Reads the table's shape, creates the table when absent and allowed, and refuses any other shape. */
export function prepareTable(pool: PostgresPool, place: TablePlace): Promise<void> {
  return withClient(pool, async (client) => {
    const read = async () =>
      shapeOf(
        (await client.query<ShapeRow>({ text: TABLE_SHAPE_QUERY, values: [place.schema, place.tableName] })).rows,
      );
    let shape = await read();
    if (shape === undefined) {
      if (!place.createTable) {
        throw new PostgresStoreError(
          'schema',
          place.target,
          `the table ${place.table} does not exist at ${place.target}, and createTable is false: create it (${oneLine(createTableStatement(place.table))}), or allow createTable`,
        );
      }
      await createSchemaAndTable(client, place);
      shape = await read();
    }
    if (shape === undefined)
      throw new PostgresStoreError(
        'schema',
        place.target,
        `the table ${place.table} at ${place.target} was created but cannot be read back`,
      );
    const differences = shapeDifferences(shape);
    if (differences.length > 0) {
      throw new PostgresStoreError(
        'schema',
        place.target,
        `the table ${place.table} at ${place.target} is not a plant table: ${differences.join('; ')}. The store never alters a table: fix it by hand, or point the store at another table`,
      );
    }
    const rights = await client.query<{ insert: boolean; select: boolean }>({
      text: `SELECT has_table_privilege(c.oid, 'INSERT') AS insert, has_table_privilege(c.oid, 'SELECT') AS select FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
      values: [place.schema, place.tableName],
    });
    const missing = ['insert', 'select'].filter((right) => rights.rows[0]?.[right as 'insert' | 'select'] !== true);
    if (missing.length > 0) {
      throw new PostgresStoreError(
        'refused',
        place.target,
        `the database user may not ${missing.map((m) => m.toUpperCase()).join(' or ')} on ${place.table} at ${place.target}: GRANT SELECT, INSERT ON ${place.table} TO it`,
      );
    }
  });
}

async function createSchemaAndTable(client: PostgresPoolClient, place: TablePlace): Promise<void> {
  const schemas = await client.query<{ found: boolean }>({
    text: 'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found',
    values: [place.schema],
  });
  // Asked first: CREATE SCHEMA IF NOT EXISTS needs the right to create even when the schema exists.
  if (schemas.rows[0]?.found !== true)
    await createIfAbsent(client, `CREATE SCHEMA IF NOT EXISTS ${place.quotedSchema}`, place);
  await createIfAbsent(client, createTableStatement(place.table), place);
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
        `the table ${place.table} does not exist at ${place.target}, and the database user may not create it (${describe(error)}): create it (${oneLine(createTableStatement(place.table))}), and pass createTable: false`,
        { cause: error },
      );
    }
    throw error;
  }
}
