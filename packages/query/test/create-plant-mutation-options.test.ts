import { createPlantStoreClient, ErrorCode, userMessage } from '@plant-store/client';
import { MutationObserver, QueryClient } from '@tanstack/query-core';
import { afterEach, expect, it } from 'vitest';
import { createPlantMutationKey, createPlantMutationOptions } from '../src/index.js';

const queryClient = new QueryClient();
afterEach(() => queryClient.clear());

/** A client whose fetch answers from `answers` in turn (the last one again when they run out), counting calls. */
function clientAnswering(...answers: (() => Response)[]) {
  const requests: Request[] = [];
  const client = createPlantStoreClient({
    baseUrl: 'http://plants.test',
    fetch: async (input, init) => {
      requests.push(new Request(input, init));
      return answers[Math.min(requests.length, answers.length) - 1]!();
    },
  });
  return { client, requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

it('creates a plant through a MutationObserver and keeps a 2^53 + 1 id exact on the wire', async () => {
  const { client, requests } = clientAnswering(json(200, { name: 'Fern' }));
  const observer = new MutationObserver(queryClient, createPlantMutationOptions(client, 'secret'));

  await expect(observer.mutate({ id: 9007199254740993n, name: 'Fern' })).resolves.toEqual({ name: 'Fern' });

  expect(observer.getCurrentResult()).toMatchObject({ status: 'success', data: { name: 'Fern' } });
  expect(await requests[0]!.text()).toBe('{"id":9007199254740993,"name":"Fern"}');
  expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret');
  expect(queryClient.getMutationCache().find({ mutationKey: createPlantMutationKey })).toBeDefined();
});

it('leaves retries to the client: a 503 is tried three times by the client, once by the mutation', async () => {
  const { client, requests } = clientAnswering(
    json(503, { error: ErrorCode.STORE_UNAVAILABLE, message: 'the store is unavailable' }, { 'retry-after': '0' }),
  );
  const observer = new MutationObserver(queryClient, createPlantMutationOptions(client, 'secret'));

  await expect(observer.mutate({ id: 1, name: 'Fern' })).rejects.toMatchObject({ code: ErrorCode.STORE_UNAVAILABLE });

  const result = observer.getCurrentResult();
  expect(result.status).toBe('error');
  expect(result.failureCount).toBe(1);
  expect(requests).toHaveLength(3); // the first attempt and the client's two retries
  expect(userMessage(result.error)).toBe('The plant store is unavailable right now. Please try again in a moment.');
});

it('fails the mutation with the API error of a 40003, with the spec sentence for a person', async () => {
  const { client, requests } = clientAnswering(json(400, { error: 40003, message: 'id is stored already' }));
  const observer = new MutationObserver(queryClient, createPlantMutationOptions(client, 'secret', { retries: 5 }));

  await observer.mutate({ id: 8, name: 'Elm' }).catch(() => undefined);

  const { error } = observer.getCurrentResult();
  expect(error?.name).toBe('PlantStoreApiError');
  expect(error?.name === 'PlantStoreApiError' && error.code).toBe(ErrorCode.ID_CONFLICT);
  expect(userMessage(error)).toBe('This id is already taken.');
  expect(requests).toHaveLength(1); // a 4xx is never retried, by either layer
});

it('passes the call options to every create', async () => {
  const { client, requests } = clientAnswering(json(200, { name: 'Fern' }));
  const observer = new MutationObserver(
    queryClient,
    createPlantMutationOptions(client, 'secret', { requestId: 'form-1', headers: { 'x-app': 'garden' } }),
  );

  await observer.mutate({ id: 2, name: 'Fern' });

  expect(requests[0]!.headers.get('x-request-id')).toBe('form-1');
  expect(requests[0]!.headers.get('x-app')).toBe('garden');
});
