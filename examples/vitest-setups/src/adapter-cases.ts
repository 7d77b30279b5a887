// The cases every TanStack Query adapter passes: a create through createPlantMutationOptions shown by
// the component, a 503 retried by the client (not by the query client) and then shown, and a 40003
// from the seeded store, both read from the narrowed error union (./describe-error.ts).
import { ErrorCode, type NewPlant, type PlantStoreClient, userMessages } from '@plant-store/client';
import { configure, fireEvent, screen } from '@testing-library/dom';
import { expect, it } from 'vitest';
import { countingClient } from './counting-client';
import { baseUrl, mocks, network, plants, mockPlantStore } from './mocks';

// findBy* and waitFor wait up to 10 s (1 s by default): room for a loaded CI machine.
configure({ asyncUtilTimeout: 10_000 });

/** What each adapter's component receives. */
export interface AdapterProps {
  readonly client: PlantStoreClient;
  readonly token: string;
  readonly plant: NewPlant;
}

/** Registers the cases for one adapter; `mount` renders its component with the props and a new QueryClient. */
export function adapterCases(mount: (props: AdapterProps) => void): void {
  mockPlantStore();

  function mountWith(plant: NewPlant) {
    const { client, attempts } = countingClient(baseUrl);
    mount({ client, token: 'any-token', plant });
    fireEvent.click(screen.getByRole('button', { name: 'Add plant' }));
    return { attempts };
  }

  it('creates a plant through createPlantMutationOptions and shows it', async () => {
    mountWith({ id: 21, name: 'Fern', tag: 'shade' });
    expect((await screen.findByRole('status')).textContent).toBe('Added Fern');
    expect(await mocks.store.get(21n)).toEqual({ id: 21n, name: 'Fern', tag: 'shade' });
  });

  it('shows a 503 after the client retried it, with the code read from the narrowed union', async () => {
    network.use(mocks.scenarios.storeUnavailable({ retryAfter: 0 }));
    const run = mountWith({ id: 22, name: 'Moss' });
    expect((await screen.findByRole('alert')).textContent).toBe(
      `${ErrorCode.STORE_UNAVAILABLE}: ${userMessages[ErrorCode.STORE_UNAVAILABLE]}`,
    );
    expect(run.attempts()).toBe(3);
  });

  it('shows 40003 for a seeded id, sent once', async () => {
    const run = mountWith({ id: plants[0]!.id, name: 'Someone else' });
    expect((await screen.findByRole('alert')).textContent).toBe(
      `${ErrorCode.ID_CONFLICT}: ${userMessages[ErrorCode.ID_CONFLICT]}`,
    );
    expect(run.attempts()).toBe(1);
  });
}
