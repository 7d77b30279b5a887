import type { PlantStore } from '@plant-store/core';
import { openFileStore } from '@plant-store/store-file';
import { createPostgresStore } from '@plant-store/store-postgres';
import type { StoreChoice } from './cli-options.js';

/** A store the CLI opened, the line the banner says of it, and how to let go of it. */
export interface OpenedStore {
  readonly store?: PlantStore;
  readonly banner?: string;
  close(): Promise<void>;
}

/** Opens the store the command line chose; the memory store is the server's own. */
export async function openStore(choice: StoreChoice): Promise<OpenedStore> {
  if (choice.kind === 'memory') return { close: async () => {} };
  if (choice.kind === 'file') {
    const store = await openFileStore({ path: choice.path });
    const { recovery } = store;
    // What opening the file found, so an operator sees a repaired crash without reading the file.
    const repaired =
      recovery.truncatedBytes > 0
        ? `; cut ${recovery.truncatedBytes} bytes of a torn last write (${recovery.reason ?? 'incomplete record'})`
        : '';
    const found = recovery.created
      ? 'new file'
      : `${recovery.plants} plant${recovery.plants === 1 ? '' : 's'} replayed`;
    return { store, banner: `Data: ${choice.path} (${found}${repaired})`, close: () => store.close() };
  }
  const store = await openPostgres(choice);
  // host:port and the table: never the URL, which may hold a password.
  return { store, banner: `Database: ${store.target}, table ${store.table}`, close: () => store.close() };
}

export function openPostgres(choice: Extract<StoreChoice, { kind: 'postgres' }>) {
  const { kind: _, ...options } = choice;
  return createPostgresStore(options);
}

/** Drains `server` (requests in flight finish), closes the store the CLI opened, and exits 0; `fail` reports a failure. */
export function drainAndExit(
  server: { close(): Promise<void> },
  opened: OpenedStore,
  fail: (what: string, error: unknown) => never,
): void {
  server
    .close()
    .then(() => opened.close())
    .then(
      () => process.exit(0),
      (error: unknown) => fail('shutdown failed', error),
    );
}
