import type {
  CreatePlantError,
  CreatePlantOptions,
  NewPlant,
  Plant,
  PlantStoreClient,
  TokenProvider,
} from '@plant-store/client';
import type { MutationObserverOptions } from '@tanstack/query-core';

/** The mutation key of every create, for `useMutationState`, `isMutating` and `setMutationDefaults`. */
export const createPlantMutationKey = ['plant-store', 'createPlant'] as const;

/**
 * What {@link createPlantMutationOptions} returns: TanStack Query v5 mutation options whose data is the
 * stored Plant, whose variables are the NewPlant and whose error is the client's {@link CreatePlantError}
 * union, so `useMutation` infers all three.
 */
export interface CreatePlantMutationOptions extends MutationObserverOptions<Plant, CreatePlantError, NewPlant> {
  mutationKey: typeof createPlantMutationKey;
  mutationFn: (newPlant: NewPlant) => Promise<Plant>;
  /**
   * The client retries what is safe to retry (no answer, 429, 5xx); retries of the mutation, such as a
   * QueryClient's default ones, would multiply its attempts.
   */
  retry: false;
}

/**
 * Mutation options that create a plant with `client.createPlant(token, newPlant, callOptions)`, for
 * `useMutation` in TanStack Query v5's React, Vue, Solid and Svelte adapters (Solid and Svelte 5 take
 * them from a function). Spread them to add callbacks: `{ ...createPlantMutationOptions(client, token), onSuccess }`.
 * @example
 * const client = createPlantStoreClient({ baseUrl: '/api' });
 * const create = useMutation(createPlantMutationOptions(client, token)); // React
 * create.mutate({ id: 9007199254740993n, name: 'Fern' });
 * if (create.error?.name === 'PlantStoreApiError' && create.error.code === ErrorCode.ID_CONFLICT) …
 */
export function createPlantMutationOptions(
  client: PlantStoreClient,
  token: string | TokenProvider,
  callOptions?: Omit<CreatePlantOptions, 'signal'>,
): CreatePlantMutationOptions {
  return {
    mutationKey: createPlantMutationKey,
    mutationFn: (newPlant) => client.createPlant(token, newPlant, callOptions),
    retry: false,
  };
}
