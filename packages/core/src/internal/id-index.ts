// The ids of a PlantTable (the memory store, and the file store's view of its log): a million of
// them must fit in a small server. A Map keyed by number or bigint costs ~28 bytes per entry, plus
// ~24 for a BigInt key per id past 2^53; here an id costs 8 bytes (its two 32-bit halves) and a hash
// slot 4 to 8, with no heap object per id.

const INITIAL_CAPACITY = 16;

/**
 * The ids of a store, each at its position in insertion order (0, 1, …), with an open-addressing hash
 * index from id to position. An id is kept as its high and low 32-bit halves, so every int64 is
 * exact and distinct ids never collide.
 */
export class IdIndex {
  /** The high and low halves of the id at position p, at 2p and 2p + 1. */
  #halves = new Int32Array(2 * INITIAL_CAPACITY);
  /** Linear probing over twice as many slots as positions, so it is at most half full: 0 is empty, p + 1 is position p. */
  #slots = new Int32Array(2 * INITIAL_CAPACITY);
  #size = 0;
  // Unknown to a client, so it cannot pick ids that all probe the same run of slots.
  readonly #seed = (Math.random() * 2 ** 32) | 0;
  // The halves of the id #split last: fields rather than an allocated pair per call.
  #hi = 0;
  #lo = 0;

  get size(): number {
    return this.#size;
  }

  /** The position of `id`, or -1 when it is absent. A number `id` must be a safe integer to be found. */
  positionOf(id: bigint | number): number {
    return this.#split(id) ? this.#slots[this.#probe(this.#hi, this.#lo)]! - 1 : -1;
  }

  /**
   * The position `id` already holds, changing nothing; or -1 once `id` is added at position `size`.
   * A number `id` (a safe integer) spares the caller a BigInt, as replay does for short ids.
   */
  add(id: bigint | number): number {
    // Past int64 the halves would wrap onto another id's.
    if (!this.#split(id)) {
      throw new RangeError(
        `plant id ${id} is ${typeof id === 'number' ? 'not a safe integer' : 'outside the int64 range'}`,
      );
    }
    // Grown before the lookup, so that the slot found is the one written and a failed allocation adds nothing.
    if (this.#size === this.#halves.length / 2) this.#grow();
    const slot = this.#probe(this.#hi, this.#lo);
    const taken = this.#slots[slot]!;
    if (taken !== 0) return taken - 1;
    const position = this.#size++;
    this.#halves[2 * position] = this.#hi;
    this.#halves[2 * position + 1] = this.#lo;
    this.#slots[slot] = position + 1;
    return -1;
  }

  /**
   * Forgets the ids at positions `size` (0 or more) and above. Safe for linear probing because they
   * go in reverse insertion order: each was added into an empty slot, which no id added before it
   * probes through, so emptying the newest slot leaves the table as it was before that id was added.
   * A rehash (#grow) re-adds in position order, which keeps that true.
   */
  truncate(size: number): void {
    for (let position = this.#size - 1; position >= size; position--) {
      this.#slots[this.#probe(this.#halves[2 * position]!, this.#halves[2 * position + 1]!)] = 0;
    }
    this.#size = Math.min(this.#size, size);
  }

  /** The id at `position` (below `size`). */
  idAt(position: number): bigint {
    const hi = this.#halves[2 * position]!;
    const lo = this.#halves[2 * position + 1]! >>> 0;
    const n = hi * 2 ** 32 + lo;
    // The sum is exact whenever it is a safe integer; only ids past 2^53 need BigInt arithmetic.
    return Number.isSafeInteger(n) ? BigInt(n) : (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** Sets #hi and #lo to the halves of `id`; false, when `id` is not an int64 (or a number not a safe integer). */
  #split(id: bigint | number): boolean {
    const n = Number(id);
    if (Number.isSafeInteger(n)) {
      // `| 0` takes a number modulo 2^32, exactly for every safe integer, negative ones included.
      this.#hi = Math.floor(n / 2 ** 32);
      this.#lo = n | 0;
      return true;
    }
    if (typeof id === 'number') return false;
    if (BigInt.asIntN(64, id) !== id) return false;
    this.#hi = Number(id >> 32n);
    this.#lo = Number(BigInt.asIntN(32, id));
    return true;
  }

  /** The slot holding the id of these halves, or the empty slot where it would go. */
  #probe(hi: number, lo: number): number {
    const halves = this.#halves;
    const slots = this.#slots;
    const mask = slots.length - 1;
    // murmur3's finalizer: sequential ids, and ids that differ only in their high half, spread evenly.
    let h = Math.imul(hi ^ this.#seed, 0x9e3779b1) ^ lo;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    for (let slot = (h ^ (h >>> 16)) & mask; ; slot = (slot + 1) & mask) {
      const taken = slots[slot]!;
      if (taken === 0 || (halves[2 * taken - 1] === lo && halves[2 * taken - 2] === hi)) return slot;
    }
  }

  #grow(): void {
    const halves = new Int32Array(this.#halves.length * 2);
    halves.set(this.#halves);
    this.#halves = halves;
    this.#slots = new Int32Array(halves.length);
    for (let position = 0; position < this.#size; position++) {
      this.#slots[this.#probe(halves[2 * position]!, halves[2 * position + 1]!)] = position + 1;
    }
  }
}
