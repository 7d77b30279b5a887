// The options in each TanStack Query v5 adapter: `useMutation` (React, Vue, Solid) and `createMutation`
// (Svelte) take them as they are or from a function, and infer the Plant, the NewPlant and the error union.
import type { CreatePlantError, NewPlant, Plant } from '@plant-store/client';
import { createPlantStoreClient } from '@plant-store/client';
import { useMutation as useReactMutation } from '@tanstack/react-query';
import { useMutation as useSolidMutation } from '@tanstack/solid-query';
import { createMutation as createSvelteMutation } from '@tanstack/svelte-query';
import { useMutation as useVueMutation } from '@tanstack/vue-query';
import { describe, expectTypeOf, it } from 'vitest';
import { createPlantMutationOptions } from '../src/index.js';

const client = createPlantStoreClient({ baseUrl: '/api' });
const options = createPlantMutationOptions(client, 'token');

describe('createPlantMutationOptions in the adapters', () => {
  it('types React useMutation with the Plant, the NewPlant and the error union', () => {
    const mutation = useReactMutation(options);
    expectTypeOf(mutation.data).toEqualTypeOf<Plant | undefined>();
    expectTypeOf(mutation.error).toEqualTypeOf<CreatePlantError | null>();
    expectTypeOf(mutation.mutate).parameter(0).toEqualTypeOf<NewPlant>();
  });

  it('keeps the types when callbacks are spread in', () => {
    const mutation = useReactMutation({
      ...options,
      onError: (error) => expectTypeOf(error).toEqualTypeOf<CreatePlantError>(),
      onSuccess: (plant, newPlant) => {
        expectTypeOf(plant).toEqualTypeOf<Plant>();
        expectTypeOf(newPlant).toEqualTypeOf<NewPlant>();
      },
    });
    expectTypeOf(mutation.error).toEqualTypeOf<CreatePlantError | null>();
  });

  it('types Vue useMutation', () => {
    const mutation = useVueMutation(options);
    expectTypeOf(mutation.error.value).toEqualTypeOf<CreatePlantError | null>();
    expectTypeOf(mutation.data.value).toEqualTypeOf<Plant | undefined>();
  });

  it('types Solid useMutation, which takes the options from a function', () => {
    const mutation = useSolidMutation(() => options);
    expectTypeOf(mutation.error).toEqualTypeOf<CreatePlantError | null>();
    expectTypeOf(mutation.data).toEqualTypeOf<Plant | undefined>();
  });

  it('types Svelte createMutation, which takes the options from a function', () => {
    const mutation = createSvelteMutation(() => options);
    expectTypeOf(mutation.error).toEqualTypeOf<CreatePlantError | null>();
    expectTypeOf(mutation.data).toEqualTypeOf<Plant | undefined>();
  });

  it('does not take a mutation that retries on top of the client', () => {
    // @ts-expect-error retry is false: the client already retries what is safe to retry
    const retrying: typeof options = { ...options, retry: 3 };
    expectTypeOf(retrying.retry).toEqualTypeOf<false>();
  });
});
