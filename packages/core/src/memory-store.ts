import { toStoredPlant, type InsertResult, type PlantStore } from './store.js';
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
      // Checked before the table is touched, so that a bad plant leaves nothing behind.
      const existing = table.add(toStoredPlant(plant));
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
