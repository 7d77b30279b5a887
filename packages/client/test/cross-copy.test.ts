import { createRequire } from 'node:module';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as source from '../src/index.js';
import { buildCopy } from './build-copy.js';

type Client = typeof source;
let copy: Awaited<ReturnType<typeof buildCopy>>;
let esm: Client;
let cjs: Client;

beforeAll(async () => {
  copy = await buildCopy();
  esm = (await import(copy.esm)) as Client;
  cjs = createRequire(import.meta.url)(copy.cjs) as Client;
});

afterAll(() => copy.remove());

function errorsOf(client: Client) {
  const response = new Response('{}', { status: 400 });
  return {
    api: new client.PlantStoreApiError('POST x', response, undefined, 'p'),
    network: new client.PlantStoreNetworkError('POST x', new Error('down')),
    timeout: new client.PlantStoreTimeoutError('POST x', 1),
  };
}

it('loads the ESM and CJS builds as two separate copies, so instanceof cannot tell their errors apart', () => {
  expect(esm.PlantStoreError).not.toBe(cjs.PlantStoreError);
  expect(errorsOf(cjs).api).not.toBeInstanceOf(esm.PlantStoreApiError);
});

it.each([
  ['ESM', 'CJS'],
  ['CJS', 'ESM'],
  ['CJS', 'source'],
] as const)('recognises errors of the %s copy with the guards of the %s copy', (from, by) => {
  const copies = {
    get ESM() {
      return esm;
    },
    get CJS() {
      return cjs;
    },
    source,
  };
  const errors = errorsOf(copies[from]);
  const guards = copies[by];

  expect(guards.PlantStoreError.is(errors.api)).toBe(true);
  expect(guards.PlantStoreApiError.is(errors.api)).toBe(true);
  expect(guards.PlantStoreApiError.is(errors.network)).toBe(false);
  expect(guards.PlantStoreNetworkError.is(errors.network)).toBe(true);
  expect(guards.PlantStoreNetworkError.is(errors.timeout)).toBe(false);
  expect(guards.PlantStoreTimeoutError.is(errors.timeout)).toBe(true);
  expect(guards.PlantStoreTimeoutError.is(errors.api)).toBe(false);
  for (const error of Object.values(errors)) expect(guards.isCreatePlantError(error)).toBe(true);
});

it('throws errors from the built copy that the source guards recognise, with their names', async () => {
  const fetch = async () => new Response('{"error":40102,"message":"token not accepted"}', { status: 401 });

  const error = await cjs.createPlant('t', { id: 1, name: 'Fern' }, { fetch }).catch((e: unknown) => e);

  expect(source.PlantStoreApiError.is(error)).toBe(true);
  expect((error as source.PlantStoreApiError).name).toBe('PlantStoreApiError');
  expect((error as source.PlantStoreApiError).code).toBe(source.ErrorCode.INVALID_TOKEN);
});
