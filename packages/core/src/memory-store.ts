import { toStoredPlant, type InsertResult, type PlantStore, type StoredPlant } from './store.js';
import { PlantTable } from './plant-table.js';

const CREATED: InsertResult = Object.freeze({ created: true });

/**
 * Each memory store's `insert` → the same insert run synchronously. The app looks a store's
 * `insert` up here and, for a memory store, skips the promise and the microtask an `await` costs:
 * on the server's hot path that is a measurable share of its CPU per create. Keyed by
 * the function rather than marked on the store, so a store that wraps a memory store (a spread with
 * its own `insert`) is always called through its own `insert`.
 */
const synchronousInserts = new WeakMap<PlantStore['insert'], (plant: unknown) => InsertResult>();

/** The synchronous twin of `insert` when it is a memory store's, else undefined. */
export function synchronousInsertOf(insert: PlantStore['insert']): ((plant: unknown) => InsertResult) | undefined {
  return synchronousInserts.get(insert);
}

/**
 * A {@link PlantStore} in memory, which tests can also seed, read and clear: what the MSW handlers and
 * an app without a `store` option use.
 */
export interface MemoryStore extends PlantStore {
  /** The plant stored under `id`, if any. */
  get(id: bigint): Promise<StoredPlant | undefined>;
  /** Every stored plant, in insertion order. */
  list(): Promise<StoredPlant[]>;
  /** How many plants are stored. */
  size(): Promise<number>;
  /** Removes every plant (tests call it between cases). */
  clear(): Promise<void>;
  /** Empties the store and refuses every later call. */
  close(): Promise<void>;
}

/**
 * A {@link PlantStore} in memory, in insertion order: the default store of an application, and what
 * the MSW mocks and tests use. `insert` checks and sets in one synchronous step, which makes it
 * atomic per id. Plants are kept compact (ids as int32 halves in typed arrays, the other fields
 * packed into shared strings) because the reference server is expected to hold a million plants
 * in a small footprint.
 *
 * @example
 * const store = createMemoryStore();
 * await store.insert({ id: 1n, name: 'Fern' }); // { created: true }
 * await store.get(1n); // { id: 1n, name: 'Fern' }
 */
export function createMemoryStore(): MemoryStore {
  const table = new PlantTable();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('the plant store is closed');
  };

  const insertNow = (plant: unknown): InsertResult => {
    open();
    // Checked before the table is touched, so that a bad plant leaves nothing behind.
    const existing = table.add(toStoredPlant(plant));
    return existing === undefined ? CREATED : { created: false, existing };
  };
  const store: MemoryStore = {
    async insert(plant) {
      return insertNow(plant);
    },
    async checkHealth() {
      open();
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
  synchronousInserts.set(store.insert, insertNow);
  return store;
}
