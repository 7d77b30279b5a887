// The form: the service's own rules before anything is sent, then one mutation whose error is one union.
import { ErrorCode, type PlantStoreClient, type TokenProvider, userMessage } from '@plant-store/client';
import { type NewPlantIssue, validateNewPlantForm } from '@plant-store/client/validate';
import { createPlantMutationOptions } from '@plant-store/query';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

/**
 * `token`: a token provider, asked for the token before a create and for a new one when the service
 * refuses it (the client then sends the create once more), or a plain token.
 */
export function AddPlantForm({ client, token }: { client: PlantStoreClient; token: string | TokenProvider }) {
  const [issues, setIssues] = useState<readonly NewPlantIssue[]>([]);
  const create = useMutation(createPlantMutationOptions(client, token));
  const taken = create.error?.name === 'PlantStoreApiError' && create.error.code === ErrorCode.ID_CONFLICT;
  const issueOf = (field: string) => issues.find((issue) => issue.path[0] === field)?.message;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '');
    const result = validateNewPlantForm({ id: text('id'), name: text('name'), tag: text('tag') });
    setIssues(result.issues ?? []);
    if (result.value) create.mutate(result.value);
    else create.reset();
  }

  return (
    <form onSubmit={submit} noValidate>
      <Field name="id" label="Id" error={issueOf('id') ?? (taken ? userMessage(create.error) : undefined)} />
      <Field name="name" label="Name" error={issueOf('name')} />
      <Field name="tag" label="Tag (optional)" error={issueOf('tag')} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Adding…' : 'Add plant'}
      </button>
      {create.error && !taken && (
        <p role="alert" className="error">
          {userMessage(create.error)}
        </p>
      )}
      {create.data && (
        <p role="status">
          Added {create.data.name} with id {String(create.variables.id)}
        </p>
      )}
    </form>
  );
}

function Field({ name, label, error }: { name: string; label: string; error: string | undefined }) {
  return (
    <label>
      {label}
      <input name={name} aria-invalid={error !== undefined} aria-describedby={`${name}-error`} />
      <span id={`${name}-error`} className="error">
        {error}
      </span>
    </label>
  );
}
