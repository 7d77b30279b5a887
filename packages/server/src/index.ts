// The public surface of @plant-store/server, by name.

// The server
export { startPlantStoreServer, generateToken } from './plant-store-server.js';
export type {
  PlantStoreServer,
  PlantStoreServerOptions,
  PlantStoreServerTimeouts,
  LogSink,
} from './plant-store-server.js';
// The core's shape of the `cors` option, so a typed `cors: { origins, maxAge }` needs no other import
export type { CorsOptions } from '@plant-store/core';

// The durable store behind `data` / `--data`, for programs that open it themselves
export { openFileStore } from './file-store.js';
export type { FileStore, FileStoreOptions, FileStoreRecovery, FileStoreStats } from './file-store.js';
export { FileStoreError } from './file-store-error.js';
export type { FileStoreErrorCode } from './file-store-error.js';
