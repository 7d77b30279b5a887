// Creating plants
export { createPlant, createPlantStoreClient } from './create-plant.js';
export type { CreatePlantOptions, PlantStoreClient, PlantStoreClientOptions } from './create-plant.js';

// Tokens that expire: a function asked for the token, and for a new one when the service refuses it
export type { TokenProvider } from './token-provider.js';

// openapi-fetch's own middleware, run for every attempt (the `middleware` option of a client and of a call)
export type { Middleware } from './middleware.js';

// The spec's shapes
export type { ErrorBody, NewPlant, Plant } from './types.js';

// Errors and the spec's error codes
export { PlantStoreApiError, PlantStoreError, PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';
// `ErrorCode` is both the constants object and the union type of its values.
export { ErrorCode } from './generated/error-codes.js';

// One union of createPlant's failures, and what to tell a person about each
export { isCreatePlantError, userMessage } from './create-plant-error.js';
export type { CreatePlantError } from './create-plant-error.js';
export { userMessages } from './generated/user-messages.js';
