import type { StoredPlant } from '@plant-store/core';

// Kept small (ids in the safe range keyed by number, an untagged plant as its bare name), because a
// million plants must fit in a small footprint whether or not they are also on disk. Simpler than
// core's memory store (typed-array ids, entries joined in chunks): replay must be able to forget the
// records of a torn batch (`remove`), which that store's append-only layout does not do.

/** A stored plant that has a tag. Plants without one are kept as their bare name string. */
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

function keyOf(id: bigint): Key {
  return id <= MAX_SAFE && id >= -MAX_SAFE ? Number(id) : id;
}

/** The key of a decimal id as the log spells it, without a BigInt for ids of up to 15 digits. */
function keyOfText(id: string): Key {
  const digits = id.charCodeAt(0) === 0x2d ? id.length - 1 : id.length;
  return digits <= 15 ? Number(id) : keyOf(BigInt(id));
}

function toPlant(id: bigint, entry: Entry): StoredPlant {
  return typeof entry === 'string' ? { id, name: entry } : { id, name: entry.name, tag: entry.tag };
}

/** The in-memory view of a log: plants by id, in insertion order. */
export class PlantIndex {
  readonly #plants = new Map<Key, Entry>();

  get(id: bigint): StoredPlant | undefined {
    const entry = this.#plants.get(keyOf(id));
    return entry === undefined ? undefined : toPlant(id, entry);
  }

  has(id: bigint): boolean {
    return this.#plants.has(keyOf(id));
  }

  set(plant: StoredPlant): void {
    this.#plants.set(keyOf(plant.id), plant.tag === undefined ? plant.name : new Tagged(plant.name, plant.tag));
  }

  /** Adds a replayed record (id as decimal text); `false`, changing nothing, when the id is taken. */
  add(record: { readonly id: string; readonly name: string; readonly tag?: string }): boolean {
    const key = keyOfText(record.id);
    if (this.#plants.has(key)) return false;
    this.#plants.set(key, record.tag === undefined ? record.name : new Tagged(record.name, record.tag));
    return true;
  }

  /** Forgets a replayed record (id as decimal text). */
  remove(id: string): void {
    this.#plants.delete(keyOfText(id));
  }

  list(): StoredPlant[] {
    const out: StoredPlant[] = [];
    for (const [key, entry] of this.#plants) out.push(toPlant(BigInt(key), entry));
    return out;
  }

  get size(): number {
    return this.#plants.size;
  }

  clear(): void {
    this.#plants.clear();
  }
}
