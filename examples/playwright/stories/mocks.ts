// The stories' mock API: @plant-store/msw under /api on the Storybook page's own origin, seeded with
// makePlants (the end-to-end test reads `plants` to know an id that is taken).
import { createPlantStoreHandlers, makePlants } from '@plant-store/msw';

export const plants = makePlants(3, { seed: 9 });
export const mocks = createPlantStoreHandlers({ baseUrl: '/api', catchAll: 'plants', initialPlants: plants });
