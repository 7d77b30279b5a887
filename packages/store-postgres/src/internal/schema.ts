// The plant table: its DDL from the plant's columns, and how a table found at start compares with it.
// A table may have more than the shape (a newer server's columns, nullable or with a default: the
// store's statements name their columns, so those stay NULL or take their default). A missing nullable
// column can be added (ALTER TABLE … ADD COLUMN). Anything else is refused with the statement or steps
// that fix it: the store never changes a column, a key or a row.
import { type Column, columnDefinition, type PlantColumns } from './plant-columns.js';

/** The statement that creates the table when it is absent. */
export function createTableStatement(table: string, columns: PlantColumns): string {
  const definitions = columns.all.map((column) => `  ${columnDefinition(column, columns.key)}`);
  return `CREATE TABLE IF NOT EXISTS ${table} (\n${definitions.join(',\n')}\n)`;
}

/**
 * The statement that adds nullable `missing` columns, each with its CHECK. The CHECK is NOT VALID: the
 * column is new, so every row holds NULL in it and none can break it, and validating would scan the
 * whole table under the lock that ADD COLUMN takes, which stops every insert meanwhile. New rows are
 * checked all the same.
 */
export function addColumnsStatement(table: string, missing: readonly Column[]): string {
  const parts = missing.map(
    (column) =>
      `ADD COLUMN IF NOT EXISTS ${column.quoted} ${column.type}${column.check === undefined ? '' : `, ADD CHECK (${column.check}) NOT VALID`}`,
  );
  return `ALTER TABLE ${table} ${parts.join(', ')}`;
}

/** A column as the catalog has it. */
interface FoundColumn {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  /** Whether an insert that leaves it out fills it: a default, an identity, a generated column. */
  readonly filled: boolean;
}

/** What the catalog says of a table: its kind, columns, and primary key columns; undefined when absent. */
export interface TableShape {
  /** pg_class.relkind: 'r' a table, 'p' a partitioned table, 'v' a view, … */
  readonly kind: string;
  readonly columns: readonly FoundColumn[];
  readonly primaryKey: readonly string[] | undefined;
}

/** Reads the shape of `schema`.`table` ($1, $2) from the catalog: one row per column, none when absent. */
export const TABLE_SHAPE_QUERY = `SELECT c.relkind AS kind, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
  a.atthasdef OR a.attidentity <> '' AS filled,
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
  filled: boolean | null;
  primary_key: string[] | null;
}

/** The shape from the rows of {@link TABLE_SHAPE_QUERY}. */
export function shapeOf(rows: readonly ShapeRow[]): TableShape | undefined {
  if (rows.length === 0) return undefined;
  return {
    kind: rows[0]!.kind,
    columns: rows
      .filter((row) => row.name !== null)
      .map((row) => ({
        name: row.name!,
        type: row.type!,
        notNull: row.not_null === true,
        filled: row.filled === true,
      })),
    primaryKey: rows[0]!.primary_key ?? undefined,
  };
}

/** How a table compares with the plant's columns. */
export interface Comparison {
  /** What the store cannot serve with, one phrase each, with the statement or steps that fix it. */
  readonly refusals: readonly string[];
  /** Nullable columns of the shape the table lacks: ALTER TABLE … ADD COLUMN adds them. */
  readonly missing: readonly Column[];
}

/** How the table `table` of `shape` differs from one of `columns`. */
export function compareShape(shape: TableShape, columns: PlantColumns, table: string): Comparison {
  if (shape.kind !== 'r' && shape.kind !== 'p') {
    return { refusals: [`it is not a table (pg_class.relkind '${shape.kind}')`], missing: [] };
  }
  const refusals: string[] = [];
  const missing: Column[] = [];
  const alter = (column: string, change: string) => `ALTER TABLE ${table} ALTER COLUMN ${column} ${change}`;
  const found = new Map(shape.columns.map((column) => [column.name, column]));
  for (const expected of columns.all) {
    const column = found.get(expected.name);
    const name = expected.quoted;
    if (column === undefined) {
      if (expected.notNull) {
        refusals.push(
          `column ${name} is missing, and every plant has one: add it (ALTER TABLE ${table} ADD COLUMN ${name} ${expected.type}${expected.check === undefined ? '' : ` CHECK (${expected.check})`}), give every row a value, then ${alter(name, 'SET NOT NULL')}`,
        );
      } else missing.push(expected);
      continue;
    }
    if (column.type !== expected.type)
      refusals.push(`column ${name} is ${column.type}, not ${expected.type} (${alter(name, `TYPE ${expected.type}`)})`);
    if (expected.notNull && !column.notNull)
      refusals.push(`column ${name} allows NULL, and must be NOT NULL (${alter(name, 'SET NOT NULL')})`);
    if (!expected.notNull && column.notNull)
      refusals.push(
        `column ${name} is NOT NULL, and must allow NULL for a plant without it (${alter(name, 'DROP NOT NULL')})`,
      );
  }
  for (const column of shape.columns) {
    if (column.notNull && !column.filled && !columns.all.some((expected) => expected.name === column.name)) {
      const name = `"${column.name.replaceAll('"', '""')}"`;
      refusals.push(
        `it has a column ${name} (${column.type}) that a plant table does not, NOT NULL without a default, which the store's inserts leave empty (${alter(name, 'DROP NOT NULL')}, or give it a default)`,
      );
    }
  }
  const key = shape.primaryKey;
  const addKey = `ALTER TABLE ${table} ADD PRIMARY KEY (${columns.key.quoted})`;
  if (key === undefined)
    refusals.push(`it has no primary key, and must have PRIMARY KEY (${columns.key.name}) (${addKey})`);
  else if (key.length !== 1 || key[0] !== columns.key.name)
    refusals.push(`its primary key is (${key.join(', ')}), not (${columns.key.name}): drop it, then ${addKey}`);
  // With something else to fix by hand, the store adds nothing: every difference is named together.
  if (refusals.length > 0 && missing.length > 0) {
    const names = missing.map((column) => column.quoted).join(', ');
    const are = missing.length === 1 ? `column ${names} is` : `columns ${names} are`;
    refusals.push(`${are} missing (${addColumnsStatement(table, missing)})`);
  }
  return { refusals, missing };
}
