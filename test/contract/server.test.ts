import { createMemoryStore, ErrorCode } from '@plant-store/core';
import { createPlant, PlantStoreApiError } from '@plant-store/client';
import { startPlantStoreServer, type PlantStoreServer } from '@plant-store/server';
import { afterAll, expect, it } from 'vitest';
import { exchange } from '../support/raw-http.js';
import { cases, TOKEN } from './cases.js';
import {
  assertContract,
  bodyBytes,
  casesFor,
  COMPARED_HEADERS,
  observe,
  runCase,
  STEP_TIMEOUT_MS,
  type CaseConfig,
  type Observed,
  type RawRequest,
} from './harness.js';
import { runOnCore, toRequest, tokensOf } from './reference.js';

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
    });
    servers.set(key, server);
  }
  return server;
}

/**
 * Sends `request` exactly as given on a new connection: fetch refuses a Content-Length that disagrees
 * with the body, and the cases that declare one are about that.
 */
async function sendOnSocket(port: number, request: RawRequest): Promise<Observed> {
  const head = [`${request.method} ${request.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'];
  for (const [name, value] of Object.entries(request.headers ?? {})) head.push(`${name}: ${value}`);
  const bytes = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), bodyBytes(request.body) ?? new Uint8Array()]);
  const { answers, text } = await exchange(port, bytes, { ms: STEP_TIMEOUT_MS });
  const answer = answers[0];
  if (answer === undefined) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const headers = Object.fromEntries(COMPARED_HEADERS.map((name) => [name, answer.headers[name] ?? null]));
  return { status: answer.status, headers, body: answer.body };
}

it.each(casesFor(cases, 'server'))('%s (reference server over TCP)', async (_name, testCase, caseIndex) => {
  const server = await serverFor(testCase.config);
  await server.store.clear();
  const origin = new URL(server.url).origin;
  const outcome = await runCase(testCase, caseIndex, async (request) => {
    const declaresLength = Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === 'content-length');
    return declaresLength ? sendOnSocket(server.port, request) : observe(await fetch(toRequest(origin, request)));
  });
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
  const error = await createPlant(TOKEN, { id: 5, name: 'Elm' }, { baseUrl: server.url, requestId: 'conflict-1' }).catch((e: unknown) => e);
  expect(PlantStoreApiError.is(error)).toBe(true);
  expect(error).toMatchObject({ status: 400, code: ErrorCode.ID_CONFLICT, requestId: 'conflict-1' });
});

it('rejects a wrong token through the client with 401 and code 40102', async () => {
  const server = await serverFor(undefined);
  const error = await createPlant('not-the-token', { id: 1, name: 'a' }, { baseUrl: server.url, retries: 0 }).catch((e: unknown) => e);
  expect(error).toMatchObject({ status: 401, code: ErrorCode.INVALID_TOKEN });
});

it('reaches a server mounted under /api through the client', async () => {
  const server = await serverFor({ basePath: '/api' });
  await server.store.clear();
  expect(server.url.endsWith('/api')).toBe(true);
  await expect(createPlant(TOKEN, { id: 1, name: 'a' }, { baseUrl: server.url })).resolves.toEqual({ name: 'a' });
});
