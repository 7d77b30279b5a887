import { PLANT_FIELDS, type PlantField, type StoredPlant } from '@plant-store/core';

/** Options of {@link makePlants}. */
export interface MakePlantsOptions {
  /** Any integer; the same seed gives the same plants. Default 1. */
  readonly seed?: number;
}

const TWO_53 = 2n ** 53n;
const MAX_COUNT = 1_000_000;

/**
 * Deterministic test data: `count` plants with distinct ids, the same ones for the same `seed` (and
 * `makePlants(n + 1)` starts with `makePlants(n)`). Ids are positive; about one in four is above 2^53,
 * where a number would round it, so a frontend meets bigints. Every other field comes from the spec's
 * `Plant` schema: drawn from the field's `examples` (the names and tags are plant names and kinds) or
 * `enum`, else made within its rules; an optional field is absent from about one plant in four, and
 * always when it has a `pattern` and no examples. Seed the mocks with them (`initialPlants`).
 * @throws TypeError when a required field has a `pattern` and no `examples` to draw from.
 * @example
 * const plants = makePlants(20, { seed: 7 });
 * const mocks = createPlantStoreHandlers({ initialPlants: plants });
 */
export function makePlants(count: number, options: MakePlantsOptions = {}): StoredPlant[] {
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_COUNT) {
    throw new RangeError(`makePlants() takes a count from 0 to ${MAX_COUNT}, got ${String(count)}`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new TypeError(`makePlants() takes an integer seed, got ${String(seed)}`);
  const next = mulberry32(seed);
  const ids = new Set<bigint>();
  const plants: StoredPlant[] = [];
  while (plants.length < count) {
    // Above 2^53 as a high 30-bit and a low 32-bit half, or a small id a person could type.
    const id =
      next() < 0.25
        ? TWO_53 + ((BigInt(Math.floor(next() * 2 ** 30)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)))
        : BigInt(1 + Math.floor(next() * 999_999));
    const plant: Record<string, unknown> = { id };
    for (const field of VALUE_FIELDS) {
      if (!field.required && (next() >= 0.75 || !drawable(field))) continue;
      plant[field.name] = drawValue(field, next);
    }
    // A repeated id draws again: every plant's id is its own.
    if (ids.has(id)) continue;
    ids.add(id);
    plants.push(plant as unknown as StoredPlant);
  }
  return plants;
}

/** Every field but the key, which makePlants draws itself. */
const VALUE_FIELDS = PLANT_FIELDS.filter((field) => field.name !== 'id');

/** Whether makePlants can make a value of `field`: a pattern needs examples to draw from. */
function drawable(field: PlantField): boolean {
  return field.pattern === undefined || (field.examples?.length ?? 0) > 0 || field.enum !== undefined;
}

/** A value of `field` within its rules, drawn with `next`. */
function drawValue(field: PlantField, next: () => number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  if (field.examples !== undefined && field.examples.length > 0) return pick(field.examples);
  if (field.enum !== undefined) {
    const value = pick(field.enum);
    return field.kind === 'int64' ? BigInt(value) : value;
  }
  switch (field.kind) {
    case 'boolean':
      return next() < 0.5;
    case 'int32':
    case 'int64': {
      // A small value a person could read, inside the bounds.
      const low = BigInt(field.minimum!);
      const high = BigInt(field.maximum!);
      const from = low > 0n || high < 0n ? low : 0n;
      const to = from + 999n < high ? from + 999n : high;
      const value = from + BigInt(Math.floor(next() * Number(to - from + 1n)));
      return field.kind === 'int64' ? value : Number(value);
    }
    case 'number': {
      const low = Number(field.minimum ?? field.exclusiveMinimum ?? 0);
      const high = Number(field.maximum ?? field.exclusiveMaximum ?? low + 100);
      // Two decimals, strictly inside an exclusive bound.
      const value = Math.round((low + (high - low) * (0.01 + 0.98 * next())) * 100) / 100;
      return value > low && value < high ? value : (low + high) / 2;
    }
    default: {
      if (field.pattern !== undefined) {
        throw new TypeError(
          `makePlants() cannot make a value of ${field.name}, which has a pattern: give it examples in the OpenAPI document`,
        );
      }
      const min = field.minLength ?? 1;
      const length = Math.min(field.maxLength ?? min + 8, min + Math.floor(next() * 9));
      let text = '';
      for (let i = 0; i < length; i++) text += String.fromCharCode(97 + Math.floor(next() * 26));
      return text;
    }
  }
}

/** mulberry32: a small, fast 32-bit generator, plenty for test data; numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
