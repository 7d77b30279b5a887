// The Plant Store mocked in the page for Vitest Browser Mode: the same mocks as ./mocks behind msw's
// service worker (public/mockServiceWorker.js, copied by `npx msw init public`), under the page's own
// origin at /api.
import { createPlantStoreHandlers, makePlants } from '@plant-store/msw';
import { setupWorker } from 'msw/browser';

export const plants = makePlants(5, { seed: 3 });
export const mocks = createPlantStoreHandlers({ baseUrl: '/api', catchAll: 'plants', initialPlants: plants });
export const network = setupWorker(...mocks.handlers);
export const baseUrl = `${location.origin}/api`;

// Vitest's own modules pass by: msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame.
const options = { onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass', quiet: true } as const;

/** In a test file: the worker runs for the file, and each test starts with the seeded store and no scenario. */
export function mockPlantStore(): void {
  beforeAll(async () => {
    await network.start(options);
  });
  afterEach(async () => {
    network.resetHandlers();
    await mocks.reset();
  });
  // Not awaited: on msw 3, stop() in Vitest Browser Mode did not settle within the hook timeout; the
  // page closes after the file anyway.
  afterAll(() => {
    void network.stop();
  });
}
