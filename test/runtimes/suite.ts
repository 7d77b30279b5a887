// The tests every runtime that serves the core passes: the real client against the hosting example,
// and the contract table over HTTP against the contract host, both in real child processes of that
// runtime. Each runtime's test file names how to start the two.
import { ErrorCode } from '@plant-store/core';
import { createPlant, PlantStoreApiError } from '@plant-store/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cases, TOKEN } from '../contract/cases.js';
import { assertContract, casesFor, runCase, type TransportName } from '../contract/harness.js';
import { sendOverHttp } from '../contract/http.js';
import { runOnCore } from '../contract/reference.js';
import type { RuntimeProcess } from './child.js';
import { CASE_HEADER } from './case-header.js';

/** How a runtime's test file starts its two processes. */
export interface RuntimeUnderTest {
  /** The contract transport name, which also labels every test (`… (bun)`). */
  readonly transport: TransportName & ('bun' | 'deno' | 'workerd');
  /** Starts the hosting example of docs/hosting.md, with PLANT_STORE_TOKEN set to `token`. */
  startExample(token: string): Promise<RuntimeProcess>;
  /** Starts contract-host.ts. */
  startContractHost(): Promise<RuntimeProcess>;
}

/** Registers the runtime's tests with vitest. */
export function testRuntime({ transport, startExample, startContractHost }: RuntimeUnderTest): void {
  let example: RuntimeProcess | undefined;
  let host: RuntimeProcess | undefined;
  beforeAll(async () => {
    [example, host] = await Promise.all([startExample(TOKEN), startContractHost()]);
  });
  afterAll(async () => {
    await Promise.all([example?.stop(), host?.stop()]);
  });
  const started = (runtime: RuntimeProcess | undefined): RuntimeProcess => {
    if (runtime === undefined) throw new Error(`${transport} did not start`);
    return runtime;
  };

  it(`creates and replays a plant through the client, keeping 2^53+1 apart from 2^53 (${transport})`, async () => {
    const baseUrl = started(example).url;
    const plant = { id: 9007199254740993n, name: 'Fern', tag: 'shade' };
    await expect(createPlant(TOKEN, plant, { baseUrl })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
    await expect(createPlant(TOKEN, plant, { baseUrl })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
    // A double would make this the same id as the plant above, and a conflict.
    await expect(createPlant(TOKEN, { id: 9007199254740992n, name: 'Moss' }, { baseUrl })).resolves.toEqual({
      name: 'Moss',
    });
  });

  it(`rejects a conflicting create through the client with a PlantStoreApiError carrying 40003 and the request id (${transport})`, async () => {
    const baseUrl = started(example).url;
    await createPlant(TOKEN, { id: 9007199254740995n, name: 'Oak' }, { baseUrl });
    const error = await createPlant(
      TOKEN,
      { id: 9007199254740995n, name: 'Elm' },
      { baseUrl, requestId: 'conflict-1' },
    ).catch((e: unknown) => e);
    expect(PlantStoreApiError.is(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: ErrorCode.ID_CONFLICT, requestId: 'conflict-1' });
  });

  it(`rejects a wrong token through the client with 401 and code 40102 (${transport})`, async () => {
    const baseUrl = started(example).url;
    const error = await createPlant('not-the-token', { id: 1, name: 'a' }, { baseUrl, retries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 401, code: ErrorCode.INVALID_TOKEN });
  });

  it.each(casesFor(cases, transport))(`%s (${transport})`, async (_name, testCase, caseIndex) => {
    const origin = new URL(started(host).url).origin;
    const outcome = await runCase(testCase, caseIndex, (request) =>
      sendOverHttp(origin, { ...request, headers: { ...request.headers, [CASE_HEADER]: String(caseIndex) } }),
    );
    assertContract(testCase, caseIndex, transport, outcome, await runOnCore(testCase, caseIndex));
  });
}
