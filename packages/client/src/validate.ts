// The public surface of @plant-store/client/validate: the service's NewPlant rules, run before a request.

// Validating a plant, and the strings of a form
export {
  newPlantFormSchema,
  newPlantSchema,
  validateNewPlant,
  validateNewPlantForm,
} from './validate-new-plant.js';
export type { NewPlantFormValues, NewPlantIssue, NewPlantValidation } from './validate-new-plant.js';

// The Standard Schema v1 interface the schemas implement
export type { StandardSchemaV1 } from './standard-schema.js';

// The shape a valid plant has
export type { NewPlant } from './types.js';
