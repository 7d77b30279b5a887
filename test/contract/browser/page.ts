// The contract's browser page: MSW's setupWorker with the @plant-store/msw handlers, and the same
// case runner as Node. Bundled by esbuild; `runContract()` is called by the Node test via playwright.
import { createPlantStoreHandlers } from '@plant-store/msw';
import { createPlant } from '@plant-store/client';
import { setupWorker } from 'msw/browser';
import { cases, TOKEN } from '../cases.js';
import { observe, runCase, type CaseOutcome, type RawRequest } from '../harness.js';
import { API_ORIGIN, toInit, tokensOf } from '../reference.js';

/** What the page hands back to Node: one outcome per table row (`null` where the row excludes the browser). */
export interface BrowserContractResult {
  readonly outcomes: Array<CaseOutcome | null>;
  readonly client: { readonly created: unknown; readonly conflict: unknown };
  /** Requests the worker answered from the handlers, and requests it found no handler for. */
  readonly mocked: number;
  readonly unhandled: number;
}

declare global {
  interface Window {
    /** Runs the table; `expectedRequests` is how many requests the run sends, counted by Node. */
    runContract(expectedRequests: number): Promise<BrowserContractResult>;
  }
}

const worker = setupWorker();
// Proof that every answer came from the handlers through the service worker, not from a server
// that happens to listen on the API's address.
let mocked = 0;
let unhandled = 0;
let onCount: (() => void) | undefined;
worker.events.on('response:mocked', () => {
  mocked++;
  onCount?.();
});
worker.events.on('request:unhandled', () => {
  unhandled++;
  onCount?.();
});

/**
 * Resolves once `expected` requests have been counted as mocked or unhandled, or after `timeoutMs`
 * (the counts then say what is missing). MSW emits `response:mocked` when the worker reports the
 * response sent, a message that can arrive after the page already holds that response, so the last
 * count may lag the run. The wait comes before `worker.stop()`, which forgets the requests whose
 * message is still on its way, so their events would never fire.
 */
function counted(expected: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      onCount = undefined;
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    onCount = () => {
      if (mocked + unhandled >= expected) done();
    };
    onCount();
  });
}

function send(request: RawRequest): Promise<Response> {
  return fetch(API_ORIGIN + request.path, toInit(request));
}

window.runContract = async (expectedRequests) => {
  // 'error': a request the handlers do not own must fail the run, never reach the network.
  await worker.start({ quiet: true, onUnhandledRequest: 'error', serviceWorker: { url: '/mockServiceWorker.js' } });
  const outcomes: Array<CaseOutcome | null> = [];
  for (const [caseIndex, testCase] of cases.entries()) {
    if (testCase.except?.['msw-browser'] !== undefined) {
      outcomes.push(null);
      continue;
    }
    const { config } = testCase;
    const mocks = createPlantStoreHandlers({
      baseUrl: API_ORIGIN + (config?.basePath ?? ''),
      tokens: tokensOf(config),
      ...(config?.bodyLimit !== undefined && { bodyLimit: config.bodyLimit }),
    });
    worker.resetHandlers(...mocks.handlers);
    outcomes.push(await runCase(testCase, caseIndex, async (request) => observe(await send(request))));
  }

  // The real client, through the worker: a create and a conflict, as an application sees them.
  const mocks = createPlantStoreHandlers({ baseUrl: API_ORIGIN, tokens: [TOKEN] });
  worker.resetHandlers(...mocks.handlers);
  const created = await createPlant(TOKEN, { id: 9007199254740993n, name: 'Fern' }, { baseUrl: API_ORIGIN });
  const conflict = await createPlant(
    TOKEN,
    { id: 9007199254740993n, name: 'Ivy' },
    { baseUrl: API_ORIGIN, requestId: 'browser-1' },
  ).then(
    () => 'resolved',
    (error: { status?: unknown; code?: unknown; requestId?: unknown; name?: unknown }) => ({
      name: error.name,
      status: error.status,
      code: error.code,
      requestId: error.requestId,
    }),
  );
  await counted(expectedRequests, 20_000);
  worker.stop();
  return { outcomes, client: { created, conflict }, mocked, unhandled };
};
