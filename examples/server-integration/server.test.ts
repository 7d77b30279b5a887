// An integration test that starts the real reference server from code, on a free port of 127.0.0.1,
// and talks to it with the real client.
import { createPlantStoreClient, ErrorCode, PlantStoreApiError } from '@plant-store/client';
import { startPlantStoreServer, type PlantStoreServer } from '@plant-store/server';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

let server: PlantStoreServer;
let client: ReturnType<typeof createPlantStoreClient>;

beforeAll(async () => {
  server = await startPlantStoreServer({ port: 0, tokens: ['integration-token'], basePath: '/api' });
  client = createPlantStoreClient({ baseUrl: server.url, retries: 0 });
});
afterEach(() => server.store.clear());
afterAll(() => server.close());

it('creates a plant and replays the same create safely', async () => {
  const plant = { id: 9223372036854775807n, name: 'Fern', tag: 'shade' };
  await expect(client.createPlant('integration-token', plant)).resolves.toEqual({ name: 'Fern', tag: 'shade' });
  await expect(client.createPlant('integration-token', plant)).resolves.toEqual({ name: 'Fern', tag: 'shade' });
  expect(await server.store.size()).toBe(1);
});

it('refuses another plant under a stored id with 40003 and keeps the first', async () => {
  await client.createPlant('integration-token', { id: 1, name: 'Oak' });
  const error = await client.createPlant('integration-token', { id: 1, name: 'Elm' }).catch((e: unknown) => e);
  expect(PlantStoreApiError.is(error) && error.code).toBe(ErrorCode.ID_CONFLICT);
  expect(await server.store.get(1n)).toEqual({ id: 1n, name: 'Oak' });
});

it('refuses a token the server was not given', async () => {
  const error = await client.createPlant('someone-else', { id: 1, name: 'Oak' }).catch((e: unknown) => e);
  expect(error).toMatchObject({ status: 401, code: ErrorCode.INVALID_TOKEN });
});
