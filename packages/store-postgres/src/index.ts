// The public surface of @plant-store/store-postgres, by name.

// The store
export { createPostgresStore } from './postgres-store.js';
export type {
  PostgresNotice,
  PostgresPool,
  PostgresPoolClient,
  PostgresPoolStats,
  PostgresStore,
  PostgresStoreOptions,
  PostgresStoreStats,
} from './types.js';

// Its errors (failures while serving are the core's StoreUnavailableError)
export { PostgresStoreError } from './postgres-store-error.js';
export type { PostgresStoreErrorCode } from './postgres-store-error.js';
