// Both form libraries with the service's schema: they refuse what the server refuses, in its words,
// before a request; they send an id past 2^53 exactly; and the server's own refusal (40003) lands
// beside the id.
import { ErrorCode, type PlantStoreClient, userMessages } from '@plant-store/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ComponentType } from 'react';
import { describe, expect, it } from 'vitest';
import { countingClient } from '../counting-client';
import { baseUrl, mocks, plants, mockPlantStore } from '../mocks';
import { RhfAddPlant } from './rhf-form';
import { TanStackAddPlant } from './tanstack-form';

// findBy* and waitFor wait up to 10 s (1 s by default): room for a loaded CI machine.
configure({ asyncUtilTimeout: 10_000 });

mockPlantStore();

type Form = ComponentType<{ client: PlantStoreClient; token: string }>;

describe.each<[string, Form]>([
  ['react-hook-form', RhfAddPlant],
  ['TanStack Form', TanStackAddPlant],
])('%s', (_library, Form) => {
  function renderForm() {
    const { client, bodies } = countingClient(baseUrl);
    const { container } = render(
      <QueryClientProvider client={new QueryClient()}>
        <Form client={client} token="any-token" />
      </QueryClientProvider>,
    );
    return {
      bodies,
      fieldError: (name: string) => container.querySelector(`#${name}-error`)!.textContent,
      submit(id: string, name: string) {
        fireEvent.change(screen.getByLabelText('Id'), { target: { value: id } });
        fireEvent.change(screen.getByLabelText('Name'), { target: { value: name } });
        fireEvent.click(screen.getByRole('button', { name: 'Add plant' }));
      },
    };
  }

  it('refuses an id out of int64 range with the server message, sending nothing', async () => {
    const form = renderForm();
    form.submit('99999999999999999999', 'Fern');
    await waitFor(() =>
      expect(form.fieldError('id')).toBe('id must be an integer between -9223372036854775808 and 9223372036854775807'),
    );
    expect(form.bodies).toEqual([]);
  });

  it('refuses an empty id with "id is required", sending nothing', async () => {
    const form = renderForm();
    form.submit('', 'Fern');
    await waitFor(() => expect(form.fieldError('id')).toBe('id is required'));
    expect(form.bodies).toEqual([]);
  });

  it('sends 2^53 + 1 exactly and the store keeps it', async () => {
    const form = renderForm();
    form.submit('9007199254740993', 'Big');
    expect((await screen.findByRole('status')).textContent).toBe('Added Big with id 9007199254740993');
    expect(form.bodies).toEqual(['{"id":9007199254740993,"name":"Big"}']);
    expect(await mocks.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Big' });
    expect(await mocks.store.get(9007199254740992n)).toBeUndefined();
  });

  it("shows the server's 40003 for a seeded id beside the id field", async () => {
    const form = renderForm();
    form.submit(String(plants[0]!.id), 'Someone else');
    await waitFor(() => expect(form.fieldError('id')).toBe(userMessages[ErrorCode.ID_CONFLICT]));
    expect(form.bodies).toHaveLength(1);
  });
});
