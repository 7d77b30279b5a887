import type { InsertResult, PlantStore, StoredPlant } from './store.js';

/** A stored plant that has a tag. Plants without one are stored as their bare name string. */
class Tagged {
  constructor(
    readonly name: string,
    readonly tag: string,
  ) {}
}

type Entry = string | Tagged;
/** Ids within ±(2^53-1) are keyed by number: small ones are unboxed and cost nothing per entry. */
type Key = number | bigint;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const CREATED: InsertResult = Object.freeze({ created: true });

/** The Map key of `id`; one id always maps to one key, so number and bigint keys never collide. */
function keyOf(id: bigint): Key {
  return id <= MAX_SAFE && id >= -MAX_SAFE ? Number(id) : id;
}

function toPlant(id: bigint, entry: Entry): StoredPlant {
  return typeof entry === 'string' ? { id, name: entry } : { id, name: entry.name, tag: entry.tag };
}

/**
 * A {@link PlantStore} in memory, in insertion order: the default store of an application, and what
 * the MSW mocks and tests use. `insert` checks and sets in one synchronous step, which makes it
 * atomic per id. Entries are kept compact (a number key and the bare name for a plant without a tag)
 * because the reference server is expected to hold a million plants in a small footprint.
 *
 * @example
 * const store = createMemoryStore();
 * await store.insert({ id: 1n, name: 'Fern' }); // { created: true }
 * await store.get(1n); // { id: 1n, name: 'Fern' }
 */
export function createMemoryStore(): PlantStore {
  const plants = new Map<Key, Entry>();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('the plant store is closed');
  };

  return {
    async insert(plant) {
      open();
      const key = keyOf(plant.id);
      const existing = plants.get(key);
      if (existing !== undefined) return { created: false, existing: toPlant(plant.id, existing) };
      // Copy only the fields the store keeps; whatever else the object carries is never stored.
      plants.set(key, plant.tag === undefined ? String(plant.name) : new Tagged(String(plant.name), String(plant.tag)));
      return CREATED;
    },
    async get(id) {
      open();
      const entry = plants.get(keyOf(id));
      return entry === undefined ? undefined : toPlant(id, entry);
    },
    async list() {
      open();
      const out: StoredPlant[] = [];
      for (const [key, entry] of plants) out.push(toPlant(BigInt(key), entry));
      return out;
    },
    async size() {
      open();
      return plants.size;
    },
    async clear() {
      open();
      plants.clear();
    },
    async close() {
      closed = true;
      plants.clear();
    },
  };
}
