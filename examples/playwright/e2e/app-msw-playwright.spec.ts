// The production build with its API mocked from the test process by @msw/playwright: requests are
// routed through Playwright (`page.route`), no worker script in the page. The handlers are
// @plant-store/msw's, seeded with makePlants.
import { defineNetworkFixture, type NetworkFixture } from '@msw/playwright';
import { createPlantStoreHandlers, makePlants, type PlantStoreHandlers } from '@plant-store/msw';
import { test as base, expect } from '@playwright/test';
import { appCases } from './app-cases';

const plants = makePlants(3, { seed: 5 });

const test = base.extend<{ mocks: PlantStoreHandlers; network: NetworkFixture }>({
  // One store per test: the app calls /api on its own origin.
  mocks: async ({ baseURL }, use) => {
    await use(createPlantStoreHandlers({ baseUrl: `${baseURL}/api`, catchAll: 'plants', initialPlants: plants }));
  },
  network: [
    async ({ context, mocks }, use) => {
      const network = defineNetworkFixture({ context, handlers: mocks.handlers });
      await network.enable();
      await use(network);
      await network.disable();
    },
    { auto: true },
  ],
});

let current: { mocks: PlantStoreHandlers; network: NetworkFixture } | undefined;
test.beforeEach(({ mocks, network }) => {
  current = { mocks, network };
});

appCases(test, {
  async open(page) {
    await page.goto('/');
    // The production build starts no worker of its own: every answer below is the routes'.
    expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
    return { takenId: String(plants[0]!.id) };
  },
  async use(_page, scenario) {
    const { mocks, network } = current!;
    if (scenario === 'unauthorized') network.use(mocks.scenarios.unauthorized());
    else network.use(mocks.scenarios.storeUnavailable({ retryAfter: 0 }));
  },
});
