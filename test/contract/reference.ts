// The core in memory: the reference every other transport is compared with. Browser-safe.
import { createPlantStoreApp, type PlantStoreApp } from '@plant-store/core';
import { TOKEN } from './cases.js';
import {
  bodyBytes,
  observe,
  runCase,
  type CaseConfig,
  type CaseOutcome,
  type ContractCase,
  type RawRequest,
} from './harness.js';

/** The origin the core and the MSW handlers are addressed at (the reference server's default). */
export const API_ORIGIN = 'http://127.0.0.1:4010';

/** A case's tokens: the table's strict token unless the case says otherwise. */
export function tokensOf(config: CaseConfig | undefined): readonly string[] | 'any' {
  return config?.tokens ?? [TOKEN];
}

/** The `fetch` init of a raw request, body as bytes (no implied content type). */
export function toInit(request: RawRequest): RequestInit {
  const body = bodyBytes(request.body);
  return { method: request.method, headers: request.headers ?? {}, ...(body !== undefined && { body }) };
}

/** A web `Request` for a raw request on `origin`. */
export function toRequest(origin: string, request: RawRequest): Request {
  return new Request(origin + request.path, toInit(request));
}

/** A fresh core application (and so an empty memory store) configured as a case says. */
export function appFor(config: CaseConfig | undefined): PlantStoreApp {
  return createPlantStoreApp({
    tokens: tokensOf(config),
    ...(config?.basePath !== undefined && { basePath: config.basePath }),
    ...(config?.bodyLimit !== undefined && { bodyLimit: config.bodyLimit }),
    ...(config?.jwt !== undefined && { auth: { jwt: config.jwt } }),
  });
}

/** Runs a case against a fresh core application, in memory. */
export function runOnCore(testCase: ContractCase, caseIndex: number): Promise<CaseOutcome> {
  const app = appFor(testCase.config);
  return runCase(testCase, caseIndex, async (request) => observe(await app.fetch(toRequest(API_ORIGIN, request))));
}
