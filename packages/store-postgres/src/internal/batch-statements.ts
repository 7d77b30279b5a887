// The group commit's two statements: the insert of a batch's plants, and the read of the rows it did
// not create (their ids taken), which also confirms that those rows are as durable as a new one.
import { type PlantColumns, selectExpression } from './plant-columns.js';

/**
 * The group commit's insert: the plants' columns as one array each, unnested into rows. It names its
 * columns, so a column the shape does not have (a newer server's) stays NULL or takes its default.
 */
export function insertStatement(table: string, columns: PlantColumns): string {
  const names = columns.all.map((column) => column.quoted).join(', ');
  const arrays = columns.all.map((column, i) => `$${i + 1}::${column.type}[]`).join(', ');
  const key = columns.key.quoted;
  return `INSERT INTO ${table} (${names}) SELECT * FROM unnest(${arrays}) ON CONFLICT (${key}) DO NOTHING RETURNING ${key}`;
}

/**
 * The read of the rows of ids an insert did not create: the shape's columns, and no others. A replay
 * is answered only for a plant as durable as one just created, yet the row read may be a commit the
 * synchronous standby never confirmed (its wait cancelled). So, where a commit of the session waits
 * for a synchronous standby, the read also writes a transactional WAL message, once, before any row
 * passes its condition: its transaction then has an id and wrote WAL, and its commit (in autocommit,
 * or the COMMIT behind a pooler) waits for the standby past every row it read. A read alone would not
 * wait, nor would a transaction id alone (`txid_current()`): PostgreSQL waits at commit only for a
 * transaction that wrote WAL. Where no commit waits for a standby (no synchronous_standby_names, or
 * synchronous_commit off or local), the read writes nothing: a create is not confirmed by a standby
 * either, and a row is seen only once its commit is flushed, for a writer with synchronous_commit on.
 */
export function selectStatement(table: string, columns: PlantColumns): string {
  const key = columns.key;
  const confirmed = [
    `pg_catalog.current_setting('synchronous_standby_names') = ''`,
    `pg_catalog.current_setting('synchronous_commit') IN ('off', 'local')`,
    `(SELECT pg_catalog.pg_logical_emit_message(true, 'plant-store', ''::text)) IS NOT NULL`,
  ].join(' OR ');
  return `SELECT ${columns.all.map(selectExpression).join(', ')} FROM ${table} WHERE ${key.quoted} = ANY ($1::${key.type}[]) AND (${confirmed})`;
}
