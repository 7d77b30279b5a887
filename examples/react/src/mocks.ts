// Development only: the Plant Store answered in the browser by @plant-store/msw (the service's own code in
// MSW's service worker), seeded with a few plants, and the failures a frontend must handle on demand.
import { createPlantStoreHandlers, makePlants } from '@plant-store/msw';
import { setupWorker } from 'msw/browser';

const scenarios = ['none', 'unauthorized', 'store unavailable', 'network error'] as const;

/** The answers the page can switch the mocks to. */
export type Scenario = (typeof scenarios)[number];

/** Running mocks: the ids already taken in the mock store, and a switch between scenarios. */
export interface Mocks {
  readonly takenIds: readonly bigint[];
  readonly scenarios: readonly Scenario[];
  use(scenario: Scenario): void;
}

export async function startMocks(): Promise<Mocks> {
  const initialPlants = makePlants(3, { seed: 1 });
  // 'plants': only /api/plants is the mocks'; anything else under /api would go on to the network.
  const mocks = createPlantStoreHandlers({ baseUrl: '/api', catchAll: 'plants', initialPlants });
  const worker = setupWorker(...mocks.handlers);
  // 'bypass': the page's own modules are not the API's; the dev server answers them.
  await worker.start({ onUnhandledRequest: 'bypass', quiet: true });
  return {
    takenIds: initialPlants.map((plant) => plant.id),
    scenarios,
    use(scenario) {
      worker.resetHandlers();
      if (scenario === 'unauthorized') worker.use(mocks.scenarios.unauthorized());
      // Every attempt answers 503 with Retry-After: 1, so the client's two retries fail too.
      if (scenario === 'store unavailable') worker.use(mocks.scenarios.storeUnavailable({ retryAfter: 1 }));
      if (scenario === 'network error') worker.use(mocks.scenarios.networkError());
    },
  };
}
