import { createPlantStoreHandlers } from '@plant-store/msw';
import mswManifest from 'msw/package.json' with { type: 'json' };
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { cases } from './cases.js';
import { assertContract, casesFor, observe, runCase } from './harness.js';
import { API_ORIGIN, runOnCore, toInit, tokensOf } from './reference.js';

// No handlers at start: each case installs a fresh handler set (and so a fresh store) with use().
// 'error' makes a request the handlers do not own fail loudly instead of reaching the network.
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// msw 3 answers Node's fetch from below undici, which fails a request whose body disagrees with its
// declared Content-Length, as browsers refuse to send one; msw 2 replaces fetch and passes the header on.
const rows = casesFor(cases, 'msw-node');
const refusedByFetch =
  Number(mswManifest.version.split('.')[0]) < 3
    ? []
    : rows.filter(([, testCase]) =>
        testCase.steps.some((step) =>
          Object.keys(step.request.headers ?? {}).some((name) => name.toLowerCase() === 'content-length'),
        ),
      );
it.each(refusedByFetch)(
  "%s (msw 3: Node's fetch refuses the request before it is sent, as a browser does)",
  async (_name, testCase) => {
    server.use(...createPlantStoreHandlers({ baseUrl: API_ORIGIN + (testCase.config?.basePath ?? '') }).handlers);
    const outcomes: unknown[] = [];
    for (const step of testCase.steps) {
      outcomes.push(
        await fetch(API_ORIGIN + step.request.path, toInit(step.request)).then(
          () => 'sent',
          (error: unknown) => error,
        ),
      );
    }
    expect(outcomes.some((outcome) => outcome instanceof TypeError)).toBe(true);
  },
);

it.each(rows.filter((row) => !refusedByFetch.includes(row)))(
  '%s (msw setupServer, raw fetch)',
  async (_name, testCase, caseIndex) => {
    const { config } = testCase;
    const mocks = createPlantStoreHandlers({
      baseUrl: API_ORIGIN + (config?.basePath ?? ''),
      tokens: tokensOf(config),
      ...(config?.bodyLimit !== undefined && { bodyLimit: config.bodyLimit }),
    });
    server.use(...mocks.handlers);
    // The global fetch with a URL and an init, looked up per call: what MSW patches and what application
    // code calls.
    const outcome = await runCase(testCase, caseIndex, async (request) =>
      observe(await fetch(API_ORIGIN + request.path, toInit(request))),
    );
    assertContract(testCase, caseIndex, 'msw-node', outcome, await runOnCore(testCase, caseIndex));
  },
);
