import { createPlantStoreClient, ErrorCode } from '@plant-store/client';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { getResponse, http, HttpResponse, type RequestHandler } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import { afterEach, expect, it } from 'vitest';

// An app whose API lives under /api: the plant store's createPlant, and /api/users, which the app
// mocks itself. Plants go through the real client, users through fetch, as the app calls them.
const API = 'http://localhost:3000/api';
const users = http.get(`${API}/users`, () => HttpResponse.json([{ name: 'Ada' }]));
const client = createPlantStoreClient({ baseUrl: API, retries: 0 });
const auth = { headers: { authorization: 'Bearer t' } };

// Each test sets up the server the way the app would, with its own order of handlers.
let server: SetupServer | undefined;
const listen = (...handlers: RequestHandler[]) => {
  const started = setupServer(...handlers);
  started.listen({ onUnhandledRequest: 'error' });
  server = started;
  return started;
};
afterEach(() => {
  server?.close();
  server = undefined;
});

const usersAnswer = async () => {
  const response = await fetch(`${API}/users`, auth);
  return { status: response.status, body: (await response.json()) as unknown };
};

it.each([
  ['after', (mocks: RequestHandler[]) => [...mocks, users]],
  ['before', (mocks: RequestHandler[]) => [users, ...mocks]],
])(
  'answers /api/users from the app and plants from the mocks with catchAll "plants", the app handler %s ours',
  async (_order, arrange) => {
    const mocks = createPlantStoreHandlers({ baseUrl: API, catchAll: 'plants' });
    listen(...arrange(mocks.handlers));
    expect(await usersAnswer()).toEqual({ status: 200, body: [{ name: 'Ada' }] });
    await expect(client.createPlant('t', { id: 1, name: 'Fern' })).resolves.toEqual({ name: 'Fern' });
    expect(await mocks.store.get(1n)).toEqual({ id: 1n, name: 'Fern' });
    // Under /plants the service's own answers still hold.
    const get = await fetch(`${API}/plants`, auth);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const below = await fetch(`${API}/plants/1`, auth);
    expect(below.status).toBe(404);
    expect(await below.json()).toMatchObject({ error: ErrorCode.NOT_FOUND });
    // Other paths under the base are not the mocks' to answer.
    expect(await getResponse(mocks.handlers, new Request(`${API}/orders`, auth))).toBeUndefined();
  },
);

it.each([
  ['catchAll: false', () => createPlantStoreHandlers({ baseUrl: API, catchAll: false }).handlers],
  ['mocks.createPlant', () => [createPlantStoreHandlers({ baseUrl: API }).createPlant]],
])('mocks only createPlant with %s and leaves the rest of /api to the app', async (_way, ours) => {
  const handlers = ours();
  expect(handlers).toHaveLength(1);
  listen(...handlers, users);
  expect(await usersAnswer()).toEqual({ status: 200, body: [{ name: 'Ada' }] });
  await expect(client.createPlant('t', { id: 2, name: 'Moss' })).resolves.toEqual({ name: 'Moss' });
  expect(await getResponse(handlers, new Request(`${API}/plants`, auth))).toBeUndefined();
});

it('swallows /api/users with the service 404 when the default catch-all comes before the app handler', async () => {
  const mocks = createPlantStoreHandlers({ baseUrl: API });
  listen(...mocks.handlers, users);
  expect(await usersAnswer()).toEqual({ status: 404, body: expect.objectContaining({ error: ErrorCode.NOT_FOUND }) });
});

it('answers /api/users from the app with the default catch-all when the app handler comes first', async () => {
  const mocks = createPlantStoreHandlers({ baseUrl: API });
  listen(users, ...mocks.handlers);
  expect(await usersAnswer()).toEqual({ status: 200, body: [{ name: 'Ada' }] });
  await expect(client.createPlant('t', { id: 3, name: 'Ivy' })).resolves.toEqual({ name: 'Ivy' });
  // Paths nobody mocks still get the service's 404 instead of reaching the network.
  expect((await fetch(`${API}/orders`, auth)).status).toBe(404);
});

it('puts an app handler added with server.use() before the default catch-all until resetHandlers', async () => {
  const mocks = createPlantStoreHandlers({ baseUrl: API });
  const running = listen(...mocks.handlers);
  running.use(users);
  expect(await usersAnswer()).toEqual({ status: 200, body: [{ name: 'Ada' }] });
  running.resetHandlers();
  expect((await usersAnswer()).status).toBe(404);
});

it('refuses a catchAll value it does not know', () => {
  // @ts-expect-error true is spelled "base"
  expect(() => createPlantStoreHandlers({ catchAll: true })).toThrow(
    /catchAll must be "base", "plants" or false, got true/,
  );
});
