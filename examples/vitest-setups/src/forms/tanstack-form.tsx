// TanStack Form with the service's own schema as its submit validator. TanStack Form hands onSubmit the
// values as typed (strings), so the submit takes the schema's output from `validateNewPlantForm`.
import { ErrorCode, type PlantStoreClient, userMessage } from '@plant-store/client';
import { newPlantFormSchema, validateNewPlantForm } from '@plant-store/client/validate';
import { createPlantMutationOptions } from '@plant-store/query';
import { useForm } from '@tanstack/react-form';
import { useMutation } from '@tanstack/react-query';
import { Created } from './created';

export function TanStackAddPlant({ client, token }: { client: PlantStoreClient; token: string }) {
  const create = useMutation(createPlantMutationOptions(client, token));
  const taken = create.error?.name === 'PlantStoreApiError' && create.error.code === ErrorCode.ID_CONFLICT;
  const form = useForm({
    defaultValues: { id: '', name: '', tag: '' },
    validators: { onSubmit: newPlantFormSchema },
    onSubmit: ({ value }) => {
      const plant = validateNewPlantForm(value).value;
      if (plant) create.mutate(plant);
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void form.handleSubmit();
      }}
      noValidate
    >
      <form.Field name="id">
        {(field) => (
          <>
            <input aria-label="Id" value={field.state.value} onChange={(e) => field.handleChange(e.target.value)} />
            <span id="id-error">
              {field.state.meta.errors.map((issue) => issue?.message).join(' ') ||
                (taken ? userMessage(create.error) : '')}
            </span>
          </>
        )}
      </form.Field>
      <form.Field name="name">
        {(field) => (
          <>
            <input aria-label="Name" value={field.state.value} onChange={(e) => field.handleChange(e.target.value)} />
            <span id="name-error">{field.state.meta.errors.map((issue) => issue?.message).join(' ')}</span>
          </>
        )}
      </form.Field>
      <button type="submit">Add plant</button>
      <Created mutation={create} />
    </form>
  );
}
