// The public surface of @plant-store/store-file, by name.

// The store
export { openFileStore } from './file-store.js';
export type { FileStore, FileStoreOptions } from './file-store.js';
export type { FileStoreRecovery, FileStoreStats } from './file-store-types.js';

// Its errors
export { FileStoreError } from './file-store-error.js';
export type { FileStoreErrorCode } from './file-store-error.js';
