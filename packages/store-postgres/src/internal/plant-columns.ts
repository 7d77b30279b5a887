// The plant table's columns, one per field of the plant's shape (PLANT_FIELDS, generated from
// openapi.yaml): their types, NOT NULL and CHECK constraints, and how a plant's values go into the
// insert's parameter arrays and come back from a row. Nothing else in the store names a field but the key.
import type { PlantField, StoredPlant } from '@plant-store/core';
import { quoteIdentifier } from './identifier.js';
import { decodeText, encodeText } from './text-codec.js';

type Kind = PlantField['kind'];

/** The field every plant is keyed on (the spec's `NewPlant.id`, an int64): the table's primary key. */
const KEY = 'id';

/** The PostgreSQL type that holds each kind exactly, as `format_type` names it. */
const SQL_TYPES: Record<Kind, string> = {
  string: 'text',
  int64: 'bigint',
  int32: 'integer',
  number: 'double precision',
  boolean: 'boolean',
};

/** The range of each integer type: a bound equal to the type's own needs no CHECK. */
const INTEGER_RANGES = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
} as const;

/** A column as the table must have it. */
export interface Column {
  /** The field's name, which is the column's. */
  readonly name: string;
  /** The name as a quoted identifier: a camelCase name, or a keyword, stays as it is. */
  readonly quoted: string;
  readonly kind: Kind;
  /** Its type, as `format_type` names it. */
  readonly type: string;
  /** Whether every plant has the field (the key, a required field). */
  readonly notNull: boolean;
  /** What the values must satisfy, as one boolean SQL expression; undefined when PostgreSQL cannot check it. */
  readonly check: string | undefined;
}

/** The columns of a shape: the key, and every column in the shape's order (the key among them). */
export interface PlantColumns {
  readonly key: Column;
  readonly all: readonly Column[];
  /** The names of the string fields, whose length bounds a statement's size. */
  readonly strings: readonly string[];
}

/** The columns of the fields of a plant's shape. */
export function plantColumns(fields: readonly PlantField[]): PlantColumns {
  const all = fields.map(columnOf);
  const key = all.find((column) => column.name === KEY);
  if (key === undefined || key.kind !== 'int64' || !key.notNull)
    throw new TypeError(`a plant's shape must have a required int64 field ${KEY}, its key`);
  return { key, all, strings: all.filter((column) => column.kind === 'string').map((column) => column.name) };
}

function columnOf(field: PlantField): Column {
  const quoted = quoteIdentifier(field.name, `the column of the field ${JSON.stringify(field.name)}`);
  return {
    name: field.name,
    quoted,
    kind: field.kind,
    type: SQL_TYPES[field.kind],
    notNull: field.required,
    check: checkOf(field, quoted),
  };
}

/**
 * The field's rules that PostgreSQL can hold exactly, as an expression on the column: an integer's
 * bounds narrower than its type's, a number's bounds, an enum. A NULL passes every CHECK, so an
 * optional field's absence never breaks one.
 */
function checkOf(field: PlantField, column: string): string | undefined {
  const { kind } = field;
  if (kind === 'boolean') return undefined;
  if (kind === 'string') {
    // Strings are stored through the text codec (text-codec.ts), so only an enum is checked, on its
    // members' stored forms: the encoding is one-to-one, so a stored value is one of them exactly when
    // the plant's is. Lengths and patterns are not: a backslash, U+0000 and a lone surrogate are stored
    // as 2, 2 and 6 characters (a maxLength CHECK would refuse valid plants), and a spec pattern is an
    // ECMA-262 expression with unicode semantics, which PostgreSQL's regular expressions do not share.
    return field.enum === undefined ? undefined : `${column} IN (${field.enum.map(textLiteral).join(', ')})`;
  }
  const literal = kind === 'number' ? doubleLiteral : String;
  // The generator keeps every member of an enum within the bounds: the enum alone says it all.
  if (field.enum !== undefined) return `${column} IN (${field.enum.map((v) => literal(v as number)).join(', ')})`;
  const parts: string[] = [];
  if (kind === 'number') {
    if (field.minimum !== undefined) parts.push(`${column} >= ${literal(field.minimum as number)}`);
    if (field.exclusiveMinimum !== undefined) parts.push(`${column} > ${literal(field.exclusiveMinimum)}`);
    if (field.maximum !== undefined) parts.push(`${column} <= ${literal(field.maximum as number)}`);
    if (field.exclusiveMaximum !== undefined) parts.push(`${column} < ${literal(field.exclusiveMaximum)}`);
  } else {
    // An integer's minimum and maximum are its effective bounds, exclusive ones already folded in.
    const [low, high] = INTEGER_RANGES[kind];
    if (field.minimum !== undefined && BigInt(field.minimum) > low) parts.push(`${column} >= ${field.minimum}`);
    if (field.maximum !== undefined && BigInt(field.maximum) < high) parts.push(`${column} <= ${field.maximum}`);
  }
  return parts.length === 0 ? undefined : parts.join(' AND ');
}

/** A double as a SQL constant of that type: its shortest exact text, which PostgreSQL reads back exactly. */
function doubleLiteral(value: number): string {
  return `'${value}'::double precision`;
}

/** A string as a SQL literal of its stored form; an E'' literal when it holds a backslash, as `quote_literal` writes one. */
function textLiteral(value: string | number): string {
  const stored = encodeText(String(value)).replaceAll("'", "''");
  return stored.includes('\\') ? `E'${stored.replaceAll('\\', '\\\\')}'` : `'${stored}'`;
}

/** The column as `CREATE TABLE` declares it: name, type, PRIMARY KEY or NOT NULL, and its CHECK. */
export function columnDefinition(column: Column, key: Column): string {
  const constraint = column === key ? ' PRIMARY KEY' : column.notNull ? ' NOT NULL' : '';
  return `${column.quoted} ${column.type}${constraint}${column.check === undefined ? '' : ` CHECK (${column.check})`}`;
}

/** What a SELECT reads a column as: a double as its 8 bytes, so no `extra_float_digits` can round it. */
export function selectExpression(column: Column): string {
  return column.kind === 'number' ? `float8send(${column.quoted}) AS ${column.quoted}` : column.quoted;
}

/** A plant to insert, with its key already as decimal text. */
interface KeyedPlant {
  readonly plant: StoredPlant;
  readonly key: string;
}

/**
 * The insert's parameters: one array per column, in the columns' order, a value (or NULL) per plant.
 * Nothing is allocated per plant but what a value's own form needs (an escaped string).
 */
export function parameterArrays(columns: PlantColumns, batch: readonly KeyedPlant[]): unknown[][] {
  const arrays: unknown[][] = [];
  for (const column of columns.all) {
    const values: unknown[] = new Array(batch.length);
    const { name, kind } = column;
    const valueAt = (i: number) => (batch[i]!.plant as unknown as Record<string, unknown>)[name];
    // One loop per kind: the batch is the hot path, and the kind is the column's, not the plant's.
    if (column === columns.key) {
      for (let i = 0; i < batch.length; i++) values[i] = batch[i]!.key;
    } else if (kind === 'string') {
      for (let i = 0; i < batch.length; i++) {
        const value = valueAt(i) as string | undefined;
        values[i] = value === undefined ? null : encodeText(value);
      }
    } else if (kind === 'number') {
      // The driver writes a number with toString(), which drops the sign of -0; PostgreSQL keeps it.
      for (let i = 0; i < batch.length; i++) {
        const value = valueAt(i) as number | undefined;
        values[i] = value === undefined ? null : value === 0 && 1 / value < 0 ? '-0' : value;
      }
    } else {
      // bigint, int32 and boolean: the driver's text of each is PostgreSQL's; undefined is NULL.
      for (let i = 0; i < batch.length; i++) values[i] = valueAt(i) ?? null;
    }
    arrays.push(values);
  }
  return arrays;
}

/** The characters of a plant's strings: what bounds a statement's size. */
export function textLength(columns: PlantColumns, plant: StoredPlant): number {
  let length = 0;
  for (const name of columns.strings)
    length += ((plant as unknown as Record<string, string | undefined>)[name] ?? '').length;
  return length;
}

/**
 * The plant a row stands for: every column of the shape, NULL as the field absent. Columns the shape
 * does not have (a newer server's) are not selected; the key comes as decimal text (int8 is read as text).
 */
export function plantOfRow(columns: PlantColumns, row: Readonly<Record<string, unknown>>): StoredPlant {
  const plant: Record<string, unknown> = {};
  for (const column of columns.all) {
    const value = row[column.name];
    if (value !== null && value !== undefined) plant[column.name] = fieldValue(column.kind, value);
  }
  return plant as unknown as StoredPlant;
}

function fieldValue(kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'string':
      return decodeText(value as string);
    case 'int64':
      return BigInt(value as string);
    case 'number':
      return (value as Buffer).readDoubleBE(0);
    default:
      return value;
  }
}
