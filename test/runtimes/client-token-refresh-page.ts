// The browser side of client-token-refresh.test.ts: the scenarios of client-token-refresh-cases.ts in
// Chromium, against the same server through the page's own origin. What only Node can do (rewrite the
// token file and send SIGHUP, fail the next creates in front of the server) is a function Node exposes
// to the page; MSW runs as the service worker.
import { setupWorker } from 'msw/browser';
import { type Hooks, type ScenarioName, scenarios } from './client-token-refresh-cases.js';

declare global {
  interface Window {
    /** Runs one scenario with this runtime's ids from `firstId`; resolves to what it observed. */
    runScenario(name: ScenarioName, firstId: number): Promise<unknown>;
    /** Exposed by Node: Hooks.rotate. */
    rotateTokens(): Promise<{ refused: string; accepted: string }>;
    /** Exposed by Node: Hooks.failNext. */
    failNextCreates(count: number): Promise<void>;
  }
}

window.runScenario = (name, firstId) => {
  const hooks: Hooks = {
    baseUrl: `${location.origin}/api`,
    tokenUrl: '/token',
    firstId,
    rotate: () => window.rotateTokens(),
    failNext: (count) => window.failNextCreates(count),
    async mock(handlers) {
      const worker = setupWorker(...handlers);
      // 'bypass': the page's own requests are not the mocks'.
      await worker.start({
        quiet: true,
        onUnhandledRequest: 'bypass',
        serviceWorker: { url: '/mockServiceWorker.js' },
      });
      return () => worker.stop();
    },
  };
  return scenarios[name](hooks);
};
