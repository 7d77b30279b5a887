// The public surface of @plant-store/core. Everything else lives in ./internal and is not exported.

// The application, and the defaults of its options
export {
  createPlantStoreApp,
  DEFAULT_BODY_LIMIT,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_JWT_CLOCK_TOLERANCE,
} from './create-plant-store-app.js';
export type {
  CorsOptions,
  InsertOutcome,
  PlantStoreApp,
  PlantStoreAppOptions,
  PlantStoreAppSettings,
  PlantStoreRequest,
  PlantStoreResponse,
} from './app-types.js';
export type { JwtAuthOptions, PlantStoreAuthOptions, RateLimit } from './auth-options.js';

// One option checked by the app's own rule before an app is made (a command line, a configuration file)
export { checkAppOption } from './check-app-option.js';
export type { CheckedAppOptions } from './check-app-option.js';

// Bearer tokens that rotate while the app serves (token files), and the file format
export { createTokenSet, parseTokenFile } from './token-set.js';
export type { TokenSet } from './token-set.js';

// Error answers outside the app (mocks, gateways), exactly as the app sends them
export { createErrorResponse } from './create-error-response.js';
export type { ErrorResponseInit } from './create-error-response.js';

// Stores: the interface every store implements, the memory store, and what a store author builds on
export type { InsertResult, PlantInput, PlantStore, StoredPlant } from './store.js';
export { createMemoryStore } from './memory-store.js';
export type { MemoryStore } from './memory-store.js';
export { samePlant, toStoredPlant } from './store.js';
export { PlantTable } from './plant-table.js';

// Tracing a store's batches with OpenTelemetry (when the app has registered an SDK)
export { startStoreSpan, traceLink } from './tracing.js';
export type { SpanAttributes, StoreSpan, StoreSpanOptions, TraceLink } from './tracing.js';

// What a store throws when it cannot answer now: the app's 503
export { StoreUnavailableError } from './store-unavailable-error.js';
export type { StoreUnavailableErrorOptions } from './store-unavailable-error.js';

// Error codes (generated from the OpenAPI document)
export { ErrorCode, errorStatus } from './generated/error-codes.js';

// The reference server's default address (the spec's first `servers` entry)
export { DEFAULT_BASE_URL, DEFAULT_HOST, DEFAULT_PORT } from './generated/default-server.js';

// The plant's shape (generated from the spec's Plant and NewPlant): its fields, their rules and messages
export { CONFLICT_MESSAGE, PLANT_FIELDS, PLANT_MESSAGES } from './generated/plant-shape.js';
export type { PlantField, PlantMessage } from './generated/plant-shape.js';

// The spec's schemas
export type { ErrorBody, Plant } from './schemas.js';
