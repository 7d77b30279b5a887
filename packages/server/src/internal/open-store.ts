// The store the command line chose: the memory store, a file store (`--data`), or PostgreSQL
// (`--database`), whose package is an optional peer of the server, loaded only when asked for.
import type { PlantStore } from '@plant-store/core';
import { openFileStore } from '@plant-store/store-file';
import type { ChosenStore } from './assemble.js';
import type { StoreChoice } from './cli-options.js';

/** The PostgreSQL store's package: an optional peer, installed beside the server by those who use it. */
const POSTGRES_PACKAGE = '@plant-store/store-postgres';

type PostgresPackage = typeof import('@plant-store/store-postgres');

/** A package the command asks for is not installed: a setup to fix, reported with exit code 2. */
export class MissingPackageError extends Error {
  override readonly name = 'MissingPackageError';
}

/** Whether `error` is Node's failure to find `name` itself (not a package that `name` imports). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    // ESM: "Cannot find package '<name>' imported from …"; CommonJS: "Cannot find module '<name>'".
    message.includes(`'${name}'`)
  );
}

/**
 * Loads the PostgreSQL store's package, through `load` (a test gives its own). When it is not
 * installed, rejects with a {@link MissingPackageError} that names the command installing it.
 */
export async function loadPostgresStore(
  load: () => Promise<PostgresPackage> = () => import('@plant-store/store-postgres'),
): Promise<PostgresPackage> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, POSTGRES_PACKAGE)) throw error;
    throw new MissingPackageError(
      `--database needs the PostgreSQL store, an optional peer of @plant-store/server that is not installed: npm install ${POSTGRES_PACKAGE}`,
    );
  }
}

/** Opens the store the command line chose, and says what it found for the banner; none for the memory store. */
export async function openStore(choice: StoreChoice): Promise<ChosenStore<PlantStore>> {
  if (choice.kind === 'memory') return {};
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
    return { store, banner: `Data: ${choice.path} (${found}${repaired})` };
  }
  const store = await openPostgres(choice);
  // host:port and the table: never the URL, which may hold a password.
  return { store, banner: `Database: ${store.target}, table ${store.table}` };
}

/** Opens the PostgreSQL store of `--database` and its flags. */
export async function openPostgres(choice: Extract<StoreChoice, { kind: 'postgres' }>) {
  const { createPostgresStore } = await loadPostgresStore();
  const { kind: _, ...options } = choice;
  return createPostgresStore(options);
}
