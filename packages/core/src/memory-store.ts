import type { InsertResult, PlantStore } from './store.js';
import { PlantTable } from './internal/plant-table.js';

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
  const table = new PlantTable();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('the plant store is closed');
  };

  return {
    async insert(plant) {
      open();
      // Copy only the fields the store keeps; whatever else the object carries is never stored.
      // Converted before the table is touched, so that a name that fails to convert leaves nothing behind.
      const name = String(plant.name);
      const existing = table.add(plant.tag === undefined ? { id: plant.id, name } : { id: plant.id, name, tag: String(plant.tag) });
      return existing === undefined ? CREATED : { created: false, existing };
    },
    async get(id) {
      open();
      return table.get(id);
    },
    async list() {
      open();
      return table.list();
    },
    async size() {
      open();
      return table.size;
    },
    async clear() {
      open();
      table.clear();
    },
    async close() {
      closed = true;
      table.clear();
    },
  };
}
