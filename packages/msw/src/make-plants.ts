import type { StoredPlant } from '@plant-store/core';

/** Options of {@link makePlants}. */
export interface MakePlantsOptions {
  /** Any integer; the same seed gives the same plants. Default 1. */
  readonly seed?: number;
}

const NAMES = [
  'Fern',
  'Ivy',
  'Moss',
  'Oak',
  'Rose',
  'Sage',
  'Basil',
  'Mint',
  'Thyme',
  'Aloe',
  'Cactus',
  'Lily',
  'Orchid',
  'Tulip',
  'Daisy',
  'Maple',
  'Palm',
  'Bamboo',
  'Lavender',
  'Rosemary',
  'Violet',
  'Jasmine',
  'Yucca',
  'Begonia',
];
const KINDS = ['Little', 'Giant', 'Golden', 'Silver', 'Wild', 'Creeping', 'Dwarf', 'Sweet', 'Spotted', 'Weeping'];
const TAGS = ['shade', 'sun', 'succulent', 'herb', 'vine', 'flower', 'tree'];

const TWO_53 = 2n ** 53n;
const MAX_COUNT = 1_000_000;

/**
 * Deterministic test data: `count` plants with distinct ids, the same ones for the same `seed` (and
 * `makePlants(n + 1)` starts with `makePlants(n)`). Ids are positive; about one in four is above 2^53,
 * where a number would round it, so a frontend meets bigints. Names are plant names, some with a
 * qualifier; about one plant in four has no tag. Seed the mocks with them (`initialPlants`).
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
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const ids = new Set<bigint>();
  const plants: StoredPlant[] = [];
  while (plants.length < count) {
    // Above 2^53 as a high 30-bit and a low 32-bit half, or a small id a person could type.
    const id =
      next() < 0.25
        ? TWO_53 + ((BigInt(Math.floor(next() * 2 ** 30)) << 32n) | BigInt(Math.floor(next() * 2 ** 32)))
        : BigInt(1 + Math.floor(next() * 999_999));
    const base = pick(NAMES);
    const name = next() < 0.5 ? `${pick(KINDS)} ${base}` : base;
    const tag = next() < 0.75 ? pick(TAGS) : undefined;
    // A repeated id draws again: every plant's id is its own.
    if (ids.has(id)) continue;
    ids.add(id);
    plants.push(tag === undefined ? { id, name } : { id, name, tag });
  }
  return plants;
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
