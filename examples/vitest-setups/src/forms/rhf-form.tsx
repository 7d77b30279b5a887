// react-hook-form with the service's own schema: `standardSchemaResolver(newPlantFormSchema)` checks the
// strings and hands the submit the NewPlant (an id past 2^53 as an exact bigint).
import { ErrorCode, type PlantStoreClient, userMessage } from '@plant-store/client';
import { newPlantFormSchema } from '@plant-store/client/validate';
import { createPlantMutationOptions } from '@plant-store/query';
import { standardSchemaResolver } from '@hookform/resolvers/standard-schema';
import { useMutation } from '@tanstack/react-query';
import { Created } from './created';
import { useForm } from 'react-hook-form';

export function RhfAddPlant({ client, token }: { client: PlantStoreClient; token: string }) {
  const create = useMutation(createPlantMutationOptions(client, token));
  const taken = create.error?.name === 'PlantStoreApiError' && create.error.code === ErrorCode.ID_CONFLICT;
  const { register, handleSubmit, formState } = useForm({
    resolver: standardSchemaResolver(newPlantFormSchema),
    defaultValues: { id: '', name: '', tag: '' },
  });
  return (
    <form onSubmit={handleSubmit((plant) => create.mutate(plant))} noValidate>
      <input aria-label="Id" {...register('id')} />
      <span id="id-error">{formState.errors.id?.message ?? (taken ? userMessage(create.error) : '')}</span>
      <input aria-label="Name" {...register('name')} />
      <span id="name-error">{formState.errors.name?.message}</span>
      <button type="submit">Add plant</button>
      <Created mutation={create} />
    </form>
  );
}
