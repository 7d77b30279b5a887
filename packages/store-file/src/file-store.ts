import type { MemoryStore, PlantStore } from '@plant-store/core';
import type { FileStoreError } from './file-store-error.js';
import type { FileStoreRecovery, FileStoreStats } from './file-store-types.js';
import { FileStoreEngine } from './internal/file-store-engine.js';

/** Options of {@link openFileStore}. */
export interface FileStoreOptions {
  /** The log file; created when missing. `<path>.lock` beside it marks it as in use. */
  readonly path: string;
}

/**
 * A {@link PlantStore} kept in an append-only log on disk, with what opening it found. Every plant is
 * also held in memory, so it reads like a {@link MemoryStore} (`get`, `list`, `size`; `clear` empties
 * the log too).
 */
export interface FileStore extends MemoryStore {
  /** The data file, resolved to an absolute path. */
  readonly path: string;
  /** What opening replayed and repaired (a torn last write cut away), for the server to log. */
  readonly recovery: FileStoreRecovery;
  /** Records, writes and fsyncs since open: group commit shows as far fewer syncs than records. */
  stats(): FileStoreStats;
}

/**
 * Opens (replaying) or creates the append-only log at `options.path`, and locks it for this process.
 * `insert` resolves only once its record is written and fsynced; concurrent inserts share one write
 * and one fsync. While open, the file is zero-filled a few MiB past its last record so that writes
 * overwrite blocks instead of growing the file; `close` cuts it back to its last record. Every record
 * names the batch (the one write) that carried it, so the last batch torn by a crash is cut away at
 * open even when some of its later blocks reached the disk and earlier ones did not (it was never
 * acknowledged), and zeros after the last record are unused space. Damage followed by intact records
 * of another batch (acknowledged data), a file that is not a plant store log, and a file locked by a
 * live process are refused with a {@link FileStoreError} naming the file (and the byte, for damage).
 * Records carry the fields the spec gives the plant, and the file's first line lists them: a file
 * written by a build whose fields or rules this one does not read is refused and left as it is, and a
 * file that lists fewer fields than this build's plants have gets a header listing them all before a
 * record is written (see the package's README, fields and versions).
 *
 * @example
 * const store = await openFileStore({ path: 'plants.log' });
 * await store.insert({ id: 1n, name: 'Fern' }); // { created: true }, on disk
 * await store.close(); // flushed, unlocked
 */
export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  // Checked here so a bare path string or a missing path gets a message about this call, not
  // node:path's about an argument the caller never passed.
  const file: unknown = (options as FileStoreOptions | null | undefined)?.path;
  if (typeof file !== 'string' || file === '') {
    throw new TypeError(
      `openFileStore takes { path: string } (the log file); got ${typeof options === 'string' ? 'a string' : 'no path'}`,
    );
  }
  return FileStoreEngine.open(file);
}
