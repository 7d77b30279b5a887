import type { PlantInput, StoredPlant } from './store.js';
import { IdIndex } from './internal/id-index.js';
import { decodeEntry, encodeEntry, EntryLog } from './internal/plant-entry.js';

/**
 * Plants by id, in insertion order, synchronously and compactly: ids as int32 halves in typed arrays
 * behind an open-addressing index, their fields packed many to a string, so a million plants take
 * about a third of the memory a Map of objects does. What `createMemoryStore` keeps its plants in, and
 * a building block for stores that also keep every plant in memory (the file store replays its log
 * into one). Not atomic across awaits: a store calls `add` in one synchronous step.
 *
 * @example
 * const table = new PlantTable();
 * table.add({ id: 1n, name: 'Fern' }); // undefined: added
 * table.add({ id: 1n, name: 'Oak' }); // { id: 1n, name: 'Fern' }: the id was taken, nothing changed
 */
export class PlantTable {
  // The id and the entry of one plant share its position.
  #ids = new IdIndex();
  #entries = new EntryLog();

  /** How many plants there are. */
  get size(): number {
    return this.#ids.size;
  }

  /** The plant stored under `id`, or `undefined`. */
  get(id: bigint): StoredPlant | undefined {
    const position = this.#ids.positionOf(id);
    return position === -1 ? undefined : decodeEntry(id, this.#entries.at(position));
  }

  /**
   * Adds `plant` unless its id is taken: `undefined` once added, else the plant stored under that id
   * (nothing changes). Throws a RangeError, adding nothing, for an id outside int64 or a number id
   * that is not a safe integer. The id may be a safe integer number, which spares a BigInt per plant.
   */
  add(plant: PlantInput): StoredPlant | undefined {
    const position = this.#ids.size;
    const taken = this.#ids.add(plant.id);
    // A taken id is the replay and conflict path: answered without encoding the entry it does not keep.
    if (taken !== -1) return decodeEntry(BigInt(plant.id), this.#entries.at(taken));
    try {
      this.#entries.push(encodeEntry(plant));
    } catch (error) {
      // Out of memory encoding or keeping the entry: the id must not stay behind without one.
      this.#ids.truncate(position);
      throw error;
    }
    return undefined;
  }

  /** Every plant, in insertion order. */
  list(): StoredPlant[] {
    const out: StoredPlant[] = [];
    for (let position = 0; position < this.#ids.size; position++) {
      out.push(decodeEntry(this.#ids.idAt(position), this.#entries.at(position)));
    }
    return out;
  }

  /** Forgets every plant, and the memory they took. */
  clear(): void {
    this.#ids = new IdIndex();
    this.#entries = new EntryLog();
  }

  /** Forgets the most recently added plants, down to the first `size` (what a cut log keeps). */
  truncate(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`cannot truncate to ${size} plants`);
    this.#ids.truncate(size);
    this.#entries.truncate(size);
  }
}
