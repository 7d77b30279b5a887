// The public surface of @plant-store/msw, by name.

// Handlers
export { createPlantStoreHandlers } from './create-plant-store-handlers.js';
export type { InitialPlant, PlantStoreHandlers, PlantStoreHandlersOptions } from './create-plant-store-handlers.js';

// Test data
export { makePlants } from './make-plants.js';
export type { MakePlantsOptions } from './make-plants.js';

// Scenarios
export type {
  PlantStoreScenarioOptions,
  PlantStoreScenarios,
  UnauthorizedCode,
} from './create-plant-store-scenarios.js';

// Re-exported from the core, so tests seed and read the store without a second import.
export { createMemoryStore, ErrorCode } from '@plant-store/core';
export type { ErrorBody, MemoryStore, PlantStore, StoredPlant } from '@plant-store/core';
