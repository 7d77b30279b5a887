// What the Vue, Solid and Svelte components show for a failed create: the error union narrowed by
// `name`, so an API error's `code` and a timeout's `timeout` are read only where they exist.
import { type CreatePlantError, userMessage } from '@plant-store/client';

export function describeError(error: CreatePlantError): string {
  switch (error.name) {
    case 'PlantStoreApiError':
      return `${error.code}: ${userMessage(error)}`;
    case 'PlantStoreTimeoutError':
      return `no answer in ${error.timeout} ms: ${userMessage(error)}`;
    default:
      return `no answer: ${userMessage(error)}`;
  }
}
