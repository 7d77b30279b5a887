// The public surface of @plant-store/query, by name.

// Creating plants with TanStack Query v5
export { createPlantMutationKey, createPlantMutationOptions } from './create-plant-mutation-options.js';
export type { CreatePlantMutationOptions } from './create-plant-mutation-options.js';
