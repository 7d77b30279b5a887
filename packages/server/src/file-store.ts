// Placeholder owned by the durable-store work (issue 6): it will be replaced by the append-only,
// fsynced, group-committed log. The signature is agreed so the CLI and API can wire `--data` now.
import type { PlantStore } from '@plant-store/core';

/** Options of {@link openFileStore}. */
export interface FileStoreOptions {
  /** The log file; created when missing. */
  readonly path: string;
}

/** Opens (replaying) or creates the append-only log at `options.path`, and locks it for this process. */
export async function openFileStore(options: FileStoreOptions): Promise<PlantStore> {
  throw new Error(`durable store not implemented yet (${options.path})`);
}
