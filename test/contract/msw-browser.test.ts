import { ErrorCode } from '@plant-store/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import {
  bundle,
  chromiumExecutable,
  mockServiceWorkerScript,
  serveStatic,
  withChromium,
  type StaticServer,
} from './browser/chromium.js';
import type { BrowserContractResult } from './browser/page.js';
import { cases } from './cases.js';
import { assertContract, casesFor } from './harness.js';
import { runOnCore } from './reference.js';

// The whole table runs once in one Chromium page (starting a browser per case would cost minutes);
// each case is then judged, and reported, on its own.
let site: StaticServer | undefined;
let result: BrowserContractResult;

// Every request the page sends: one per step of each case run in the browser, and the real client's
// create and its conflicting create.
const expectedRequests =
  casesFor(cases, 'msw-browser').reduce((sum, [, testCase]) => sum + testCase.steps.length, 0) + 2;

beforeAll(async () => {
  // First, so a missing browser fails in seconds rather than after the bundle.
  await chromiumExecutable();
  const script = await bundle(fileURLToPath(new URL('./browser/page.ts', import.meta.url)));
  site = await serveStatic({
    '/': {
      type: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><title>contract</title><script type="module" src="/page.js"></script>',
    },
    '/page.js': { type: 'text/javascript', body: script },
    '/mockServiceWorker.js': { type: 'text/javascript', body: await mockServiceWorkerScript() },
  });
  result = await withChromium(`${site.origin}/`, async (page) => {
    await page.waitForFunction(() => typeof window.runContract === 'function');
    return page.evaluate((expected) => window.runContract(expected), expectedRequests);
  });
}, 120_000);

afterAll(async () => {
  await site?.close();
});

it.each(casesFor(cases, 'msw-browser'))('%s (msw setupWorker in Chromium)', async (_name, testCase, caseIndex) => {
  const outcome = result.outcomes[caseIndex];
  if (outcome == null) throw new Error(`case "${testCase.name}" on transport msw-browser: the page ran no such case`);
  assertContract(testCase, caseIndex, 'msw-browser', outcome, await runOnCore(testCase, caseIndex));
});

it('answers every request of the run from the handlers through the service worker', () => {
  expect({ mocked: result.mocked, unhandled: result.unhandled }).toEqual({ mocked: expectedRequests, unhandled: 0 });
});

it('creates a plant through the real client in the browser and reports a conflict as PlantStoreApiError 40003', () => {
  expect(result.client.created).toEqual({ name: 'Fern' });
  expect(result.client.conflict).toEqual({
    name: 'PlantStoreApiError',
    status: 400,
    code: ErrorCode.ID_CONFLICT,
    requestId: 'browser-1',
  });
});
