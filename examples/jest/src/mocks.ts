// The Plant Store mocked in Node for the component tests: the service's own code behind msw's
// setupServer, seeded with five plants (the same five for the same seed). The hooks are the runner's
// globals (Jest's, or Vitest's with `globals: true`).
import { createPlantStoreHandlers, makePlants } from '@plant-store/msw';
import { setupServer } from 'msw/node';

export const plants = makePlants(5, { seed: 3 });
export const mocks = createPlantStoreHandlers({ initialPlants: plants });
export const network = setupServer(...mocks.handlers);
/** Where the client sends its requests: the mocks' own base URL. */
export const baseUrl = mocks.baseUrl;

// A request nothing answers fails the test: msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame.
const strict = { onUnhandledRequest: 'error', onUnhandledFrame: 'error' } as const;

/** In a test file: the mocks listen for the file, and each test starts with the seeded store and no scenario. */
export function mockPlantStore(): void {
  beforeAll(() => network.listen(strict));
  afterEach(async () => {
    network.resetHandlers();
    await mocks.reset();
  });
  afterAll(() => network.close());
}
