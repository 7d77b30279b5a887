// A Plant Store client for tests that records what it sends: each attempt (retries included) and its body.
import { createPlantStoreClient, type PlantStoreClient } from '@plant-store/client';

export function countingClient(baseUrl: string): { client: PlantStoreClient; bodies: string[]; attempts(): number } {
  const bodies: string[] = [];
  const client = createPlantStoreClient({
    baseUrl,
    // The global fetch at call time: the one msw intercepts.
    fetch: (input, init) => {
      bodies.push(String(init?.body));
      return globalThis.fetch(input, init);
    },
  });
  return { client, bodies, attempts: () => bodies.length };
}
