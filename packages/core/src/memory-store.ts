import type { InsertResult, PlantStore, StoredPlant } from './store.js';
import { decodeEntry, encodeEntry, type Entry } from './internal/plant-entry.js';

/** Ids within ±(2^53-1) are keyed by number: small ones are unboxed and cost nothing per entry. */
type Key = number | bigint;

const CREATED: InsertResult = Object.freeze({ created: true });

/** The Map key of `id`; one id always maps to one key, so number and bigint keys never collide. */
function keyOf(id: bigint): Key {
  // Number() rounds only beyond 2^53, where the result is no longer a safe integer: no two ids share a key.
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
}

/**
 * A {@link PlantStore} in memory, in insertion order: the default store of an application, and what
 * the MSW mocks and tests use. `insert` checks and sets in one synchronous step, which makes it
 * atomic per id. Entries are kept compact (a number key and one flat string per plant)
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
      if (existing !== undefined) return { created: false, existing: decodeEntry(plant.id, existing) };
      // Copy only the fields the store keeps; whatever else the object carries is never stored.
      plants.set(key, encodeEntry(String(plant.name), plant.tag === undefined ? undefined : String(plant.tag)));
      return CREATED;
    },
    async get(id) {
      open();
      const entry = plants.get(keyOf(id));
      return entry === undefined ? undefined : decodeEntry(id, entry);
    },
    async list() {
      open();
      const out: StoredPlant[] = [];
      for (const [key, entry] of plants) out.push(decodeEntry(BigInt(key), entry));
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
