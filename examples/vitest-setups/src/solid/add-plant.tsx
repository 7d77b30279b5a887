// A Solid component that creates a plant with @tanstack/solid-query.
import type { NewPlant, PlantStoreClient } from '@plant-store/client';
import { createPlantMutationOptions } from '@plant-store/query';
import { useMutation } from '@tanstack/solid-query';
import { Show } from 'solid-js';
import { describeError } from '../describe-error';

export function AddPlant(props: { client: PlantStoreClient; token: string; plant: NewPlant }) {
  const create = useMutation(() => createPlantMutationOptions(props.client, props.token));
  return (
    <div>
      <button type="button" onClick={() => create.mutate(props.plant)}>
        Add plant
      </button>
      <Show when={create.data}>{(plant) => <p role="status">Added {plant().name}</p>}</Show>
      <Show when={create.error}>{(error) => <p role="alert">{describeError(error())}</p>}</Show>
    </div>
  );
}
