// How the memory store keeps one plant: compactly, because a million of them must fit in a small server.
import { PLANT_FIELDS, type PlantField } from '../generated/plant-shape.js';
import type { PlantInput, StoredPlant } from '../store.js';

/** The fields an entry holds: every field but the key, which the id index keeps. */
const VALUE_FIELDS: readonly PlantField[] = PLANT_FIELDS.filter((field) => field.name !== 'id');
/** The field a plant with nothing else is kept as, bare: the first value field when it is a required string. */
const BARE = VALUE_FIELDS[0]?.kind === 'string' && VALUE_FIELDS[0].required ? VALUE_FIELDS[0].name : undefined;
const LAST = VALUE_FIELDS.length - 1;

/**
 * One stored plant's fields (all but the id) as one string, which {@link EntryLog} joins with its
 * neighbours (an object per plant would cost ~40 bytes more, and could not be joined):
 * - a plant with only its first, required string field (the name), not starting with NUL: that string;
 * - otherwise NUL, then each field in the shape's order: `~` when absent, a string as its length, `:`
 *   and its characters (the last field's `:` and characters to the end), any other value as its text and `;`.
 */
export type Entry = string;

/** Encodes a plant's fields, the id aside, as one {@link Entry}. */
export function encodeEntry(plant: PlantInput | StoredPlant): Entry {
  const values = plant as unknown as Record<string, unknown>;
  if (BARE !== undefined) {
    const bare = values[BARE] as string;
    let alone = bare.length === 0 || bare.charCodeAt(0) !== 0;
    for (let i = 1; alone && i <= LAST; i++) alone = values[VALUE_FIELDS[i]!.name] === undefined;
    if (alone) return bare;
  }
  // join() builds one flat string; `+` would keep a rope of many strings alive per entry.
  const parts: (string | number)[] = ['\0'];
  for (let i = 0; i <= LAST; i++) {
    const field = VALUE_FIELDS[i]!;
    const value = values[field.name];
    if (value === undefined) parts.push('~');
    else if (field.kind !== 'string') parts.push(String(value), ';');
    else if (i === LAST) parts.push(':', value as string);
    else parts.push((value as string).length, ':', value as string);
  }
  return parts.join('');
}

/** The plant stored under `id` as `entry`. */
export function decodeEntry(id: bigint, entry: Entry): StoredPlant {
  const plant: Record<string, unknown> = { id };
  if (entry.length === 0 || entry.charCodeAt(0) !== 0) {
    plant[BARE!] = entry;
    return plant as unknown as StoredPlant;
  }
  let at = 1;
  for (let i = 0; i <= LAST; i++) {
    const field = VALUE_FIELDS[i]!;
    if (entry.charCodeAt(at) === 126 /* ~ */) {
      at++;
      continue;
    }
    if (field.kind === 'string') {
      if (i === LAST) {
        plant[field.name] = entry.slice(at + 1);
        break;
      }
      const colon = entry.indexOf(':', at);
      const end = colon + 1 + Number(entry.slice(at, colon));
      plant[field.name] = entry.slice(colon + 1, end);
      at = end;
    } else {
      const end = entry.indexOf(';', at);
      const text = entry.slice(at, end);
      plant[field.name] =
        field.kind === 'int64' ? BigInt(text) : field.kind === 'boolean' ? text === 'true' : Number(text);
      at = end + 1;
    }
  }
  return plant as unknown as StoredPlant;
}

// Joined 1024 at a time: a string per plant costs about twice its characters (a header, rounding, fragmented pages).
const CHUNK_BITS = 10;
const CHUNK_SIZE = 1 << CHUNK_BITS;
// Far below every engine's maximum string length (V8: 2^29 - 24), so join() never throws.
const MAX_CHUNK_LENGTH = 2 ** 24;

/**
 * Entries in insertion order, the one at position p at `at(p)`. Every full chunk of 1024 entries is
 * joined into one string (with each entry's end in it), unless that string would be too long.
 */
export class EntryLog {
  /** Joined chunks, or a chunk's entries themselves: the last chunk, still filling, and the too-long ones. */
  readonly #chunks: (string | Entry[])[] = [];
  /** Where the entry at position p ends in its chunk's joined string. */
  #ends = new Int32Array(CHUNK_SIZE);
  #length = 0;
  /** How long the filling chunk's joined string would be. */
  #filled = 0;

  /** Appends `entry` at position `length`. */
  push(entry: Entry): void {
    const position = this.#length;
    const index = position & (CHUNK_SIZE - 1);
    if (position === this.#ends.length) {
      const ends = new Int32Array(this.#ends.length * 2);
      ends.set(this.#ends);
      this.#ends = ends;
    }
    if (index === 0) {
      this.#chunks.push([]);
      this.#filled = 0;
    }
    const last = this.#chunks.length - 1;
    const chunk = this.#chunks[last] as Entry[];
    chunk.push(entry);
    this.#length++;
    // Past 2^31 an end wraps in the Int32Array, but then the chunk is too long to join and its ends are never read.
    this.#filled += entry.length;
    this.#ends[position] = this.#filled;
    if (index === CHUNK_SIZE - 1 && this.#filled <= MAX_CHUNK_LENGTH) this.#chunks[last] = chunk.join('');
  }

  /**
   * Forgets the entries at positions `length` (0 or more) and above. A joined chunk that is cut into
   * is split back into its kept entries, which fill up and are joined again as entries are pushed.
   */
  truncate(length: number): void {
    if (length >= this.#length) return;
    this.#length = length;
    const kept = length & (CHUNK_SIZE - 1);
    // A cut at a chunk boundary keeps only full chunks: the next push starts a new one.
    this.#chunks.length = (length >> CHUNK_BITS) + (kept === 0 ? 0 : 1);
    if (kept === 0) return;
    const last = this.#chunks.length - 1;
    const chunk = this.#chunks[last]!;
    const entries: Entry[] = [];
    for (let index = 0; index < kept; index++) {
      entries.push(typeof chunk === 'string' ? this.at((last << CHUNK_BITS) + index) : chunk[index]!);
    }
    this.#chunks[last] = entries;
    // The kept entries' ends are their running lengths, as push wrote them.
    this.#filled = 0;
    for (const entry of entries) this.#filled += entry.length;
  }

  /** The entry at `position` (below the number pushed). */
  at(position: number): Entry {
    const chunk = this.#chunks[position >> CHUNK_BITS]!;
    const index = position & (CHUNK_SIZE - 1);
    if (typeof chunk !== 'string') return chunk[index]!;
    return chunk.slice(index === 0 ? 0 : this.#ends[position - 1], this.#ends[position]);
  }
}
