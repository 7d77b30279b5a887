// The public surface of @plant-store/core. Everything else lives in ./internal and is not exported.

// The application
export { createPlantStoreApp, DEFAULT_BODY_LIMIT } from './create-plant-store-app.js';
export type {
  CorsOptions,
  PlantStoreApp,
  PlantStoreAppOptions,
  PlantStoreRequest,
  PlantStoreResponse,
} from './app-types.js';

// Error answers outside the app (mocks, gateways), exactly as the app sends them
export { createErrorResponse } from './create-error-response.js';
export type { ErrorResponseInit } from './create-error-response.js';

// Stores
export { createMemoryStore } from './memory-store.js';
/**
 * The compact synchronous table behind createMemoryStore, for stores that also keep plants elsewhere
 * (the server's file store keeps its log's plants in one).
 */
export { PlantTable } from './internal/plant-table.js';
export { toStoredPlant } from './store.js';
export type { InsertResult, PlantStore, StoredPlant } from './store.js';

// Error codes (generated from openapi.yaml)
export { ErrorCode, errorStatus } from './generated/error-codes.js';

// The spec's schemas
export type { ErrorBody, NewPlant, Plant } from './schemas.js';
