import { PlantStoreApiError, PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';
import type { ErrorCode } from './generated/error-codes.js';
import { userMessages } from './generated/user-messages.js';

/**
 * What a failed `createPlant` rejects with, as one union to narrow on (by `name`, or with the guards):
 * the service answered with an error, no answer came, or none came in time. A caller's abort rejects
 * with the signal's reason and bad input throws a `TypeError` before anything is sent; neither is one.
 * @example
 * if (isCreatePlantError(error) && error.name === 'PlantStoreApiError' && error.code === ErrorCode.ID_CONFLICT) …
 */
export type CreatePlantError = PlantStoreApiError | PlantStoreNetworkError | PlantStoreTimeoutError;

/** Whether `value` is a {@link CreatePlantError} from any loaded copy of this package (ESM, CJS, another version). */
export function isCreatePlantError(value: unknown): value is CreatePlantError {
  return PlantStoreApiError.is(value) || PlantStoreNetworkError.is(value) || PlantStoreTimeoutError.is(value);
}

/**
 * What to tell a person about a failed create: the code's sentence of `userMessages` for an
 * answer of the service, a sentence for no answer and for a timeout, and a general one for anything else.
 * @example
 * createPlant(token, plant).catch((error) => setMessage(userMessage(error)));
 */
export function userMessage(error: unknown): string {
  if (PlantStoreApiError.is(error)) {
    const code: ErrorCode | undefined = error.code;
    return code === undefined
      ? `The plant store answered with an unexpected error (${error.status}).`
      : userMessages[code];
  }
  if (PlantStoreNetworkError.is(error))
    return 'The plant store could not be reached. Check your connection and try again.';
  if (PlantStoreTimeoutError.is(error)) return 'The plant store did not answer in time. Please try again.';
  return 'Something went wrong. Please try again.';
}
