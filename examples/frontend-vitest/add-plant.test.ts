// A frontend test with vitest and MSW: the handlers run the real service code, the client is the real
// client, and scenarios give the failure paths.
import { createPlantStoreHandlers } from '@plant-store/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { addPlant } from './add-plant.js';

const mocks = createPlantStoreHandlers({ baseUrl: 'https://api.example.test/v1' });
const server = setupServer(...mocks.handlers);
const settings = { baseUrl: 'https://api.example.test/v1', token: 'any-token-works' };

// A request no handler answers fails the test: msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame.
const strict = { onUnhandledRequest: 'error', onUnhandledFrame: 'error' } as const;
beforeAll(() => server.listen(strict));
afterEach(async () => {
  server.resetHandlers();
  await mocks.store.clear();
});
afterAll(() => server.close());

it('shows the added plant and stores it', async () => {
  await expect(addPlant({ id: 1, name: 'Fern', tag: 'shade' }, settings)).resolves.toEqual({
    ok: true,
    text: 'Added Fern (shade)',
  });
  expect(await mocks.store.list()).toEqual([{ id: 1n, name: 'Fern', tag: 'shade' }]);
});

it('tells the user when the id is taken by a plant seeded in the store', async () => {
  await mocks.store.insert({ id: 7n, name: 'Oak' });
  await expect(addPlant({ id: 7, name: 'Elm' }, settings)).resolves.toEqual({
    ok: false,
    text: 'Another plant already has this id',
  });
});

it('shows the service message when the service refuses the plant', async () => {
  // The client refuses what it can see is wrong before sending; a scenario gives the server's 40002.
  server.use(mocks.scenarios.invalidPlant('name must be at most 100 characters'));
  await expect(addPlant({ id: 1, name: 'Fern' }, settings)).resolves.toEqual({
    ok: false,
    text: 'Check the form: name must be at most 100 characters',
  });
});

it('asks the user to sign in again when the token is rejected', async () => {
  server.use(mocks.scenarios.unauthorized());
  await expect(addPlant({ id: 1, name: 'Fern' }, settings)).resolves.toEqual({
    ok: false,
    text: 'Please sign in again',
    signIn: true,
  });
});

it('shows the request id of a server fault', async () => {
  server.use(mocks.scenarios.internalError());
  const result = await addPlant({ id: 1, name: 'Fern' }, settings);
  expect(result.ok).toBe(false);
  expect(result.text).toMatch(/^Something went wrong \(request [\w-]+\)$/);
});

it('says the user is offline when the connection fails', async () => {
  server.use(mocks.scenarios.networkError());
  await expect(addPlant({ id: 1, name: 'Fern' }, settings)).resolves.toEqual({ ok: false, text: 'You are offline' });
});

it('says the store is slow when the answer does not come in time', async () => {
  server.use(mocks.scenarios.slow('infinite'));
  await expect(addPlant({ id: 1, name: 'Fern' }, { ...settings, timeout: 50 })).resolves.toEqual({
    ok: false,
    text: 'The store is slow; try again',
  });
});

it('only accepts the app token when the mocks are strict', async () => {
  const strict = createPlantStoreHandlers({ baseUrl: 'https://api.example.test/v1', tokens: ['app-token'] });
  server.use(...strict.handlers);
  await expect(addPlant({ id: 1, name: 'Fern' }, settings)).resolves.toMatchObject({ signIn: true });
  await expect(addPlant({ id: 1, name: 'Fern' }, { ...settings, token: 'app-token' })).resolves.toMatchObject({
    ok: true,
  });
});
