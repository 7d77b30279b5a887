// The production build with the app's own mocks (src/mocks.ts: setupWorker, seeded with makePlants)
// started in the page by the test; msw's worker script is in dist/ (`msw init dist`).
import { test } from '@playwright/test';
import { appCases } from './app-cases';

appCases(test, {
  async open(page) {
    await page.goto('/');
    const takenId = await page.evaluate(async () => {
      const path = '/e2e/mocks.js';
      const { startMocks } = await import(path);
      const mocks = await startMocks();
      Object.assign(window, { plantStoreMocks: mocks });
      return String(mocks.takenIds[0]);
    });
    return { takenId };
  },
  async use(page, scenario) {
    await page.evaluate((name) => {
      (window as unknown as { plantStoreMocks: { use(s: string): void } }).plantStoreMocks.use(name);
    }, scenario);
  },
});
