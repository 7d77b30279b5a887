import { createMemoryStore, ErrorCode } from '@plant-store/core';
import { createPlant, PlantStoreApiError } from '@plant-store/client';
import { startPlantStoreServer, type PlantStoreServer } from '@plant-store/server';
import { afterAll, expect, it } from 'vitest';
import { cases, TOKEN } from './cases.js';
import { assertContract, casesFor, runCase, type CaseConfig } from './harness.js';
import { sendOverHttp } from './http.js';
import { runOnCore, tokensOf } from './reference.js';

// One running server per distinct configuration, its store cleared before each case, so the suite
// opens a handful of sockets rather than one per case.
const servers = new Map<string, Promise<PlantStoreServer>>();
afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).close()));
});

function serverFor(config: CaseConfig | undefined): Promise<PlantStoreServer> {
  const key = JSON.stringify(config ?? {});
  let server = servers.get(key);
  if (server === undefined) {
    server = startPlantStoreServer({
      port: 0,
      host: '127.0.0.1',
      tokens: tokensOf(config),
      store: createMemoryStore(),
      ...(config?.basePath !== undefined && { basePath: config.basePath }),
      ...(config?.bodyLimit !== undefined && { bodyLimit: config.bodyLimit }),
      ...(config?.jwt !== undefined && { auth: { jwt: config.jwt } }),
    });
    servers.set(key, server);
  }
  return server;
}

it.each(casesFor(cases, 'server'))('%s (reference server over TCP)', async (_name, testCase, caseIndex) => {
  const server = await serverFor(testCase.config);
  await server.store.clear();
  const origin = new URL(server.url).origin;
  const outcome = await runCase(testCase, caseIndex, (request) => sendOverHttp(origin, request));
  assertContract(testCase, caseIndex, 'server', outcome, await runOnCore(testCase, caseIndex));
});

// The same service through the real client: what an application sees.
it('creates a plant through the client and replays it, keeping an id above 2^53 exact', async () => {
  const server = await serverFor(undefined);
  await server.store.clear();
  const plant = { id: 9007199254740993n, name: 'Fern', tag: 'shade' };
  await expect(createPlant(TOKEN, plant, { baseUrl: server.url })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
  await expect(createPlant(TOKEN, plant, { baseUrl: server.url })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
  expect(await server.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Fern', tag: 'shade' });
});

it('rejects a conflicting create through the client with a PlantStoreApiError carrying 40003 and the request id', async () => {
  const server = await serverFor(undefined);
  await server.store.clear();
  await createPlant(TOKEN, { id: 5, name: 'Oak' }, { baseUrl: server.url });
  const error = await createPlant(
    TOKEN,
    { id: 5, name: 'Elm' },
    { baseUrl: server.url, requestId: 'conflict-1' },
  ).catch((e: unknown) => e);
  expect(PlantStoreApiError.is(error)).toBe(true);
  expect(error).toMatchObject({ status: 400, code: ErrorCode.ID_CONFLICT, requestId: 'conflict-1' });
});

it('rejects a wrong token through the client with 401 and code 40102', async () => {
  const server = await serverFor(undefined);
  const error = await createPlant('not-the-token', { id: 1, name: 'a' }, { baseUrl: server.url, retries: 0 }).catch(
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ status: 401, code: ErrorCode.INVALID_TOKEN });
});

it('reaches a server mounted under /api through the client', async () => {
  const server = await serverFor({ basePath: '/api' });
  await server.store.clear();
  expect(server.url.endsWith('/api')).toBe(true);
  await expect(createPlant(TOKEN, { id: 1, name: 'a' }, { baseUrl: server.url })).resolves.toEqual({ name: 'a' });
});
