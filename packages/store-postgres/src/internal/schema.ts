// The plant table: its DDL, and the check that a table found at start has exactly that shape. Nothing
// here drops or alters anything: a table of another shape is refused, and the message says how it differs.

/** A column as the table must have it. */
interface Column {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

const COLUMNS: readonly Column[] = [
  { name: 'id', type: 'bigint', notNull: true },
  { name: 'name', type: 'text', notNull: true },
  { name: 'tag', type: 'text', notNull: false },
];

/** `name` as a quoted SQL identifier, after checking PostgreSQL would keep it whole. */
export function quoteIdentifier(name: unknown, what: string): string {
  if (typeof name !== 'string') throw new TypeError(`${what} must be a string; got ${typeof name}`);
  // PostgreSQL truncates an identifier past 63 bytes, which would silently name another table, and a
  // lone surrogate has no UTF-8 (the round trip through a Buffer changes it).
  if (name === '' || Buffer.byteLength(name) > 63 || name.includes('\u0000') || Buffer.from(name).toString() !== name) {
    throw new RangeError(`${what} must be 1 to 63 bytes of UTF-8 without U+0000; got ${JSON.stringify(name)}`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/** The statement that creates the table when it is absent. */
export function createTableStatement(qualified: string): string {
  return `CREATE TABLE IF NOT EXISTS ${qualified} (\n  id bigint PRIMARY KEY,\n  name text NOT NULL,\n  tag text\n)`;
}

/** What the catalog says of a table: its kind, columns, and primary key columns; undefined when absent. */
export interface TableShape {
  /** pg_class.relkind: 'r' a table, 'p' a partitioned table, 'v' a view, … */
  readonly kind: string;
  readonly columns: readonly Column[];
  readonly primaryKey: readonly string[] | undefined;
}

/** Reads the shape of `schema`.`table` ($1, $2) from the catalog: one row per column, none when absent. */
export const TABLE_SHAPE_QUERY = `SELECT c.relkind AS kind, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
  (SELECT array_agg(k.attname::text ORDER BY k.attnum) FROM pg_index i JOIN pg_attribute k ON k.attrelid = i.indrelid AND k.attnum = ANY (i.indkey)
   WHERE i.indrelid = c.oid AND i.indisprimary) AS primary_key
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relname = $2
ORDER BY a.attnum`;

/** A row of {@link TABLE_SHAPE_QUERY}: the table's kind and primary key, and one column (null when it has none). */
export interface ShapeRow {
  kind: string;
  name: string | null;
  type: string | null;
  not_null: boolean | null;
  primary_key: string[] | null;
}

/** The shape from the rows of {@link TABLE_SHAPE_QUERY}. */
export function shapeOf(rows: readonly ShapeRow[]): TableShape | undefined {
  if (rows.length === 0) return undefined;
  return {
    kind: rows[0]!.kind,
    columns: rows
      .filter((row) => row.name !== null)
      .map((row) => ({ name: row.name!, type: row.type!, notNull: row.not_null === true })),
    primaryKey: rows[0]!.primary_key ?? undefined,
  };
}

/** How `shape` differs from the plant table, one phrase per difference; empty when it is the same. */
export function shapeDifferences(shape: TableShape): string[] {
  if (shape.kind !== 'r' && shape.kind !== 'p') return [`it is not a table (pg_class.relkind '${shape.kind}')`];
  const differences: string[] = [];
  const found = new Map(shape.columns.map((column) => [column.name, column]));
  for (const expected of COLUMNS) {
    const column = found.get(expected.name);
    if (column === undefined) {
      differences.push(`column "${expected.name}" is missing`);
      continue;
    }
    if (column.type !== expected.type)
      differences.push(`column "${expected.name}" is ${column.type}, not ${expected.type}`);
    if (expected.notNull && !column.notNull)
      differences.push(`column "${expected.name}" allows NULL, and must be NOT NULL`);
    if (!expected.notNull && column.notNull)
      differences.push(`column "${expected.name}" is NOT NULL, and must allow NULL (a plant without a tag)`);
  }
  for (const column of shape.columns) {
    if (!COLUMNS.some((expected) => expected.name === column.name))
      differences.push(`it has a column "${column.name}" (${column.type}) that a plant table does not`);
  }
  const key = shape.primaryKey;
  if (key === undefined) differences.push('it has no primary key, and must have PRIMARY KEY (id)');
  else if (key.length !== 1 || key[0] !== 'id') differences.push(`its primary key is (${key.join(', ')}), not (id)`);
  return differences;
}
