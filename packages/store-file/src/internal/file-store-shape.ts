// The plant's shape as the log holds it: the fields a record carries, written and read from the field
// table (PLANT_FIELDS) alone, so a field added to openapi.yaml is stored with no change here.
import { PLANT_FIELDS, type PlantField, PlantTable, type StoredPlant, toStoredPlant } from '@plant-store/core';
import { headerLine } from './file-store-header.js';

/** What a store keeps its plants in while open: core's PlantTable, for the spec's shape. */
export type ShapeTable = Pick<PlantTable, 'size' | 'get' | 'add' | 'list' | 'clear' | 'truncate'>;

/**
 * The plant's shape a store opens its log with: the fields records carry, the check every plant passes
 * before it is written and every record passes when it is read, and the table plants are kept in. Every
 * store uses the spec's, {@link SPEC_SHAPE}; tests open stores of other shapes, as a newer or an older
 * build would, to check what each makes of the other's files.
 */
export interface PlantShape {
  readonly fields: readonly PlantField[];
  /** The plant a value stands for, checked against the shape's rules; throws TypeError or RangeError saying why not. */
  toStoredPlant(value: unknown): StoredPlant;
  createTable(): ShapeTable;
}

/** The shape openapi.yaml gives the plant, as `npm run generate` wrote it into the core. */
export const SPEC_SHAPE: PlantShape = { fields: PLANT_FIELDS, toStoredPlant, createTable: () => new PlantTable() };

/** An int64 as a record holds it: a decimal string of at most 19 digits (more is outside int64 anyway). */
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,18})$/;

/** A field as a record's JSON writes it: the member's text before its value, first or after another. */
interface Member {
  readonly name: string;
  readonly kind: PlantField['kind'];
  /** `{"<field>":` */
  readonly first: string;
  /** `,"<field>":` */
  readonly next: string;
}

/**
 * A log's codec for one shape: its header line, and each record's JSON, written and read. A record is a
 * JSON object of the plant's present fields, in the shape's order: an int64 as a decimal string, so no
 * JSON reader rounds it; a string as JSON.stringify writes it (every control character and lone surrogate
 * escaped, so it round-trips exactly and never holds a newline); an int32, a number or a boolean as its
 * JSON value, -0 as 0 (as the memory store keeps it and the service answers it). An absent optional
 * field is left out.
 */
export class LogCodec {
  readonly shape: PlantShape;
  /** The header line of a log this build writes for the shape. */
  readonly header: Buffer;
  readonly #members: readonly Member[];
  readonly #kinds: ReadonlyMap<string, PlantField['kind']>;

  constructor(shape: PlantShape) {
    this.shape = shape;
    this.header = headerLine(shape.fields);
    // The member texts made once, so that writing a record is the template string it was, field by field.
    this.#members = shape.fields.map(({ name, kind }) => {
      const key = `${JSON.stringify(name)}:`;
      return { name, kind, first: `{${key}`, next: `,${key}` };
    });
    this.#kinds = new Map(shape.fields.map((field) => [field.name, field.kind]));
  }

  /** The JSON of `plant`'s record; `plant` has passed the shape's check. */
  json(plant: StoredPlant): string {
    const values = plant as unknown as Record<string, unknown>;
    let out = '';
    for (const member of this.#members) {
      const value = values[member.name];
      if (value === undefined) continue;
      out +=
        (out === '' ? member.first : member.next) +
        (member.kind === 'string' ? JSON.stringify(value) : member.kind === 'int64' ? `"${value}"` : String(value));
    }
    return `${out}}`;
  }

  /**
   * The plant of a record's parsed JSON, or why this build cannot read it: a member that is not one of
   * the shape's fields, an int64 not written as one, or a value the shape's rules refuse.
   */
  read(value: unknown): StoredPlant | string {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the record is not a JSON object';
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const kind = this.#kinds.get(key);
      if (kind === undefined) {
        return `${JSON.stringify(key)} is not one of this build's fields, ${this.shape.fields.map((f) => f.name).join(', ')}`;
      }
      if (kind !== 'int64') continue;
      const text = record[key];
      if (typeof text !== 'string' || !DECIMAL.test(text)) return `${key} is not an int64 written as a decimal string`;
      // Up to 15 characters a number is exact and cheaper to make; the check takes a safe integer as an int64.
      record[key] = text.length <= 15 ? Number(text) : BigInt(text);
    }
    try {
      return this.shape.toStoredPlant(record);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
