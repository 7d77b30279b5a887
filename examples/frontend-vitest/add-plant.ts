// A frontend's "add a plant" action, as an application would write it: call the client, turn every
// failure the service can answer into something to show the user.
import {
  createPlant,
  ErrorCode,
  PlantStoreApiError,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
  type NewPlant,
} from '@plant-store/client';

/** What the form shows after a submit. */
export type AddPlantResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly text: string; readonly signIn?: true };

/** Settings the app passes in (where the API is, and how long a user waits: 10 s unless set). */
export interface AddPlantSettings {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeout?: number;
}

/** Submits a new plant and describes the outcome for the user. */
export async function addPlant(plant: NewPlant, settings: AddPlantSettings): Promise<AddPlantResult> {
  try {
    const created = await createPlant(settings.token, plant, {
      baseUrl: settings.baseUrl,
      retries: 0,
      // The client sets no timeout by default (as fetch); a form must not spin for ever on a hung service.
      timeout: settings.timeout ?? 10_000,
    });
    return { ok: true, text: created.tag ? `Added ${created.name} (${created.tag})` : `Added ${created.name}` };
  } catch (error) {
    if (PlantStoreApiError.is(error)) {
      // Branch on the spec's codes, never on message text.
      switch (error.code) {
        case ErrorCode.MISSING_CREDENTIALS:
        case ErrorCode.INVALID_TOKEN:
          return { ok: false, text: 'Please sign in again', signIn: true };
        case ErrorCode.ID_CONFLICT:
          return { ok: false, text: 'Another plant already has this id' };
        case ErrorCode.INVALID_PLANT:
          return { ok: false, text: `Check the form: ${error.body?.message ?? 'invalid plant'}` };
        default:
          return { ok: false, text: `Something went wrong (request ${error.requestId ?? 'unknown'})` };
      }
    }
    if (PlantStoreTimeoutError.is(error)) return { ok: false, text: 'The store is slow; try again' };
    if (PlantStoreNetworkError.is(error)) return { ok: false, text: 'You are offline' };
    throw error;
  }
}
