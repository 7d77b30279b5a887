import type { InsertResult, PlantStore, StoredPlant } from './store.js';
import { IdIndex } from './internal/id-index.js';
import { decodeEntry, encodeEntry, EntryLog } from './internal/plant-entry.js';

const CREATED: InsertResult = Object.freeze({ created: true });

/**
 * A {@link PlantStore} in memory, in insertion order: the default store of an application, and what
 * the MSW mocks and tests use. `insert` checks and sets in one synchronous step, which makes it
 * atomic per id. Plants are kept compact (ids as int32 halves in typed arrays, names and tags
 * packed into shared strings) because the reference server is expected to hold a million plants
 * in a small footprint.
 *
 * @example
 * const store = createMemoryStore();
 * await store.insert({ id: 1n, name: 'Fern' }); // { created: true }
 * await store.get(1n); // { id: 1n, name: 'Fern' }
 */
export function createMemoryStore(): PlantStore {
  // The id and the entry of one plant share its position.
  let ids = new IdIndex();
  let entries = new EntryLog();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('the plant store is closed');
  };
  const forget = (): void => {
    ids = new IdIndex();
    entries = new EntryLog();
  };

  return {
    async insert(plant) {
      open();
      // Copy only the fields the store keeps; whatever else the object carries is never stored.
      // Encoded before the id is added, so that a name that fails to convert leaves nothing behind.
      const entry = encodeEntry(String(plant.name), plant.tag === undefined ? undefined : String(plant.tag));
      const taken = ids.add(plant.id);
      if (taken !== -1) return { created: false, existing: decodeEntry(plant.id, entries.at(taken)) };
      entries.push(entry);
      return CREATED;
    },
    async get(id) {
      open();
      const position = ids.positionOf(id);
      return position === -1 ? undefined : decodeEntry(id, entries.at(position));
    },
    async list() {
      open();
      const out: StoredPlant[] = [];
      for (let position = 0; position < ids.size; position++) out.push(decodeEntry(ids.idAt(position), entries.at(position)));
      return out;
    },
    async size() {
      open();
      return ids.size;
    },
    async clear() {
      open();
      forget();
    },
    async close() {
      closed = true;
      forget();
    },
  };
}
