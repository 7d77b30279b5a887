// How the memory store keeps one plant: compactly, because a million of them must fit in a small server.
import type { StoredPlant } from '../store.js';

/**
 * One stored plant as one string, which {@link EntryLog} joins with its neighbours (a 2-field object
 * would cost ~40 bytes more per tagged plant, and could not be joined):
 * - a plant without a tag whose name does not start with NUL: the name itself;
 * - otherwise: NUL, then `-` and the name (no tag), or the name's length, `:`, the name and the tag.
 */
export type Entry = string;

/** Encodes a plant's name and tag as one {@link Entry}. */
export function encodeEntry(name: string, tag: string | undefined): Entry {
  if (tag === undefined) return name.length === 0 || name.charCodeAt(0) !== 0 ? name : '\0-' + name;
  // join() builds one flat string; `+` would keep a rope of four strings alive per entry.
  return ['\0', name.length, ':', name, tag].join('');
}

/** The plant stored under `id` as `entry`. */
export function decodeEntry(id: bigint, entry: Entry): StoredPlant {
  if (entry.length === 0 || entry.charCodeAt(0) !== 0) return { id, name: entry };
  if (entry.charCodeAt(1) === 45 /* - */) return { id, name: entry.slice(2) };
  const colon = entry.indexOf(':', 1);
  const nameEnd = colon + 1 + Number(entry.slice(1, colon));
  return { id, name: entry.slice(colon + 1, nameEnd), tag: entry.slice(nameEnd) };
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
