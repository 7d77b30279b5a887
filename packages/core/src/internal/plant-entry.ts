// How the memory store keeps one plant: compactly, because a million of them must fit in a small server.
import type { StoredPlant } from '../store.js';

/**
 * One stored plant as one flat string, the smallest thing V8 keeps per entry (a 2-field object
 * costs ~40 bytes more per tagged plant, which adds up to ~40 MB at a million plants):
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
