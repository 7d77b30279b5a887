// The React example's form (examples/react/src/add-plant-form.tsx) rendered with React Testing Library
// against the mocks in ./mocks: the flows of the README, in Jest and in Vitest alike (test globals, no
// runner import: Vitest runs it with `globals: true`).
import { ErrorCode, userMessages } from '@plant-store/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AddPlantForm } from './add-plant-form';
import { countingClient } from './counting-client';
import { baseUrl, mocks, network, plants, mockPlantStore } from './mocks';

// findBy* and waitFor wait up to 10 s (1 s by default): room for a loaded CI machine.
configure({ asyncUtilTimeout: 10_000 });

mockPlantStore();

/** Renders the form; `attempts()` counts the requests the client sent, retries included. */
function renderForm() {
  const { client, attempts } = countingClient(baseUrl);
  const { container } = render(
    <QueryClientProvider client={new QueryClient()}>
      <AddPlantForm client={client} token="any-token" />
    </QueryClientProvider>,
  );
  const input = (name: string) => container.querySelector<HTMLInputElement>(`input[name=${name}]`)!;
  return {
    attempts,
    fieldError: (name: string) => container.querySelector(`#${name}-error`)!.textContent,
    submit(id: string, name: string) {
      fireEvent.change(input('id'), { target: { value: id } });
      fireEvent.change(input('name'), { target: { value: name } });
      fireEvent.click(screen.getByRole('button', { name: 'Add plant' }));
    },
  };
}

test('a create is shown in the component and kept in the store', async () => {
  const form = renderForm();
  form.submit('12', 'Fern');
  expect((await screen.findByRole('status')).textContent).toBe('Added Fern with id 12');
  expect(await mocks.store.get(12n)).toEqual({ id: 12n, name: 'Fern' });
});

test('a seeded id is refused with 40003, its message beside the id field', async () => {
  const form = renderForm();
  const seeded = plants[0]!;
  form.submit(String(seeded.id), 'Someone else');
  await waitFor(() => expect(form.fieldError('id')).toBe(userMessages[ErrorCode.ID_CONFLICT]));
  expect(screen.queryByRole('alert')).toBeNull();
  expect(await mocks.store.get(seeded.id)).toEqual(seeded);
  expect(await mocks.store.size()).toBe(plants.length);
});

test('a 401 shows the sign-in message', async () => {
  network.use(mocks.scenarios.unauthorized());
  const form = renderForm();
  form.submit('13', 'Ivy');
  expect((await screen.findByRole('alert')).textContent).toBe(userMessages[ErrorCode.INVALID_TOKEN]);
  expect(form.attempts()).toBe(1);
});

test('a 503 is retried by the client, then shown', async () => {
  network.use(mocks.scenarios.storeUnavailable({ retryAfter: 0 }));
  const form = renderForm();
  form.submit('14', 'Moss');
  expect((await screen.findByRole('alert')).textContent).toBe(userMessages[ErrorCode.STORE_UNAVAILABLE]);
  expect(form.attempts()).toBe(3);
  expect(await mocks.store.get(14n)).toBeUndefined();
});

test('a single 503 is retried and the create is shown', async () => {
  network.use(mocks.scenarios.storeUnavailable({ retryAfter: 0, once: true }));
  const form = renderForm();
  form.submit('15', 'Sedge');
  expect((await screen.findByRole('status')).textContent).toBe('Added Sedge with id 15');
  expect(form.attempts()).toBe(2);
});

test("an id the server would refuse is refused before anything is sent, with the server's words", async () => {
  const form = renderForm();
  form.submit('99999999999999999999', 'Fern');
  await waitFor(() =>
    expect(form.fieldError('id')).toBe('id must be an integer between -9223372036854775808 and 9223372036854775807'),
  );
  expect(form.attempts()).toBe(0);
});
