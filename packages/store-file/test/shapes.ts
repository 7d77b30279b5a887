// Plant shapes other than the spec's, for stores that play an older or a newer build: the version-2
// fields alone, and those plus an optional field of every kind, as a maintainer could add to openapi.yaml.
import {
  PLANT_FIELDS,
  type PlantField,
  type PlantInput,
  PlantTable,
  type StoredPlant,
  toStoredPlant,
} from '@plant-store/core';
import type { PlantShape, ShapeTable } from '../src/internal/file-store-shape.js';

/** The fields of log format version 2, as the spec has them (the spec may have more by now). */
const V2_FIELDS = PLANT_FIELDS.filter((field) => ['id', 'name', 'tag'].includes(field.name));

/** The shape of the build that wrote version 2, which reads and writes id, name and tag only. */
export const OLDER: PlantShape = { fields: V2_FIELDS, toStoredPlant, createTable: () => new PlantTable() };

/**
 * The fields {@link newer} adds: one optional field of each kind with the rules the spec allows. The
 * int64 one is NewPlant's own (kept, never answered), listed before the key as its property order would.
 */
function addedFields(leavesMinimum: number): { before: PlantField[]; after: PlantField[] } {
  const optional = { required: false, answered: true } as const;
  return {
    before: [
      {
        name: 'parent',
        type: 'integer',
        kind: 'int64',
        format: 'int64',
        required: false,
        answered: false,
        minimum: -(2n ** 63n),
        maximum: 2n ** 63n - 1n,
      },
    ],
    after: [
      {
        name: 'leaves',
        type: 'integer',
        kind: 'int32',
        format: 'int32',
        ...optional,
        minimum: leavesMinimum,
        maximum: 2 ** 31 - 1,
      },
      { name: 'height', type: 'number', kind: 'number', format: 'double', ...optional },
      { name: 'indoor', type: 'boolean', kind: 'boolean', ...optional },
      { name: 'colour', type: 'string', kind: 'string', ...optional, enum: ['green', 'red', 'variegated'] },
      { name: 'code', type: 'string', kind: 'string', ...optional, maxLength: 8, pattern: '^[A-Z0-9-]+$' },
    ],
  };
}

/** A string's length in code points, as maxLength counts it. */
function codePoints(text: string): number {
  return [...text].length;
}

/** `value` as a value of `field` (an int64 as a bigint), or a TypeError or RangeError saying why not, as the core's check words them. */
function checkField(field: PlantField, value: unknown): unknown {
  const invalid = `plant ${field.name} must be`;
  switch (field.kind) {
    case 'int64': {
      const exact =
        typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value as number) : undefined;
      if (exact === undefined || BigInt.asIntN(64, exact) !== exact) {
        throw new TypeError(
          `${invalid} an integer between ${field.minimum} and ${field.maximum} when present; got ${String(value)}`,
        );
      }
      return exact;
    }
    case 'int32':
      if (!Number.isInteger(value)) throw new TypeError(`${invalid} an integer; got ${String(value)}`);
      if ((value as number) < Number(field.minimum) || (value as number) > Number(field.maximum)) {
        throw new RangeError(
          `${invalid} an integer between ${field.minimum} and ${field.maximum} when present; got ${value}`,
        );
      }
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new TypeError(`${invalid} a number when present; got ${String(value)}`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean')
        throw new TypeError(`${invalid} true or false when present; got ${String(value)}`);
      return value;
    default:
      if (typeof value !== 'string') throw new TypeError(`${invalid} a string when present; got ${String(value)}`);
      if (field.enum !== undefined && !field.enum.includes(value))
        throw new RangeError(`${invalid} one of ${field.enum.join(', ')} when present; got ${value}`);
      if (field.maxLength !== undefined && codePoints(value) > field.maxLength)
        throw new RangeError(`${invalid} a string of at most ${field.maxLength} characters when present; got ${value}`);
      if (field.pattern !== undefined && !new RegExp(field.pattern, 'u').test(value))
        throw new RangeError(`${invalid} a string matching ${field.pattern} when present; got ${value}`);
      return value;
  }
}

/** Plants by id in a Map: a table for any shape (core's PlantTable keeps the spec's fields only). */
class MapTable implements ShapeTable {
  #plants = new Map<bigint, StoredPlant>();

  get size(): number {
    return this.#plants.size;
  }

  get(id: bigint): StoredPlant | undefined {
    return this.#plants.get(id);
  }

  add(plant: PlantInput): StoredPlant | undefined {
    const id = BigInt(plant.id);
    const taken = this.#plants.get(id);
    if (taken !== undefined) return taken;
    this.#plants.set(id, { ...plant, id } as StoredPlant);
    return undefined;
  }

  list(): StoredPlant[] {
    return [...this.#plants.values()];
  }

  clear(): void {
    this.#plants.clear();
  }

  truncate(size: number): void {
    this.#plants = new Map([...this.#plants].slice(0, size));
  }
}

/**
 * The shape of a newer build: the version-2 fields and an optional field of each kind (`parent`
 * int64, `leaves` int32 of at least `leavesMinimum`, `height` number, `indoor` boolean, `colour` an
 * enum, `code` a string of at most 8 characters matching a pattern). A larger `leavesMinimum` plays a
 * spec whose rule was tightened since.
 */
export function newer(leavesMinimum = 1): PlantShape {
  const { before, after } = addedFields(leavesMinimum);
  const added = [...before, ...after];
  return {
    fields: [...before, ...V2_FIELDS, ...after],
    toStoredPlant(value) {
      const plant = { ...toStoredPlant(value) } as Record<string, unknown>;
      const input = value as Record<string, unknown>;
      for (const field of added) {
        if (input[field.name] !== undefined) plant[field.name] = checkField(field, input[field.name]);
      }
      return plant as unknown as StoredPlant;
    },
    createTable: () => new MapTable(),
  };
}

/** The newer build's shape. */
export const NEWER = newer();
