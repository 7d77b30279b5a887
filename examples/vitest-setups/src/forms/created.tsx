// The line both forms show after a create: the stored name and the id as it was sent (a bigint stays exact).
import type { NewPlant, Plant } from '@plant-store/client';

export function Created({ mutation }: { mutation: { data?: Plant; variables?: NewPlant } }) {
  if (!mutation.data || !mutation.variables) return null;
  return (
    <p role="status">
      Added {mutation.data.name} with id {String(mutation.variables.id)}
    </p>
  );
}
