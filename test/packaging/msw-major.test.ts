// Which msw the MSW suites ran on: msw 2 in `npm test`, msw 3 where vitest.msw3.config.ts maps `msw` to
// the `msw3` alias (PLANT_STORE_MSW_MAJOR=3). A run that silently loaded the other copy, in the tests or
// inside @plant-store/msw, fails here instead of reporting msw 2's results as msw 3's.
import { createPlantStoreHandlers } from '@plant-store/msw';
import { getResponse, HttpHandler } from 'msw';
import { expect, it } from 'vitest';

const expectedMajor = process.env.PLANT_STORE_MSW_MAJOR ?? '2';

it(`builds the handlers on the msw this run resolves (msw ${expectedMajor})`, async () => {
  const { default: manifest } = await import('msw/package.json', { with: { type: 'json' } });
  expect(manifest.version.split('.')[0]).toBe(expectedMajor);

  const mocks = createPlantStoreHandlers();
  for (const handler of mocks.handlers) expect(handler).toBeInstanceOf(HttpHandler);
  const response = await getResponse(
    mocks.handlers,
    new Request('http://127.0.0.1:4010/plants', {
      method: 'POST',
      headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
      body: JSON.stringify({ id: 7, name: 'Fern' }),
    }),
  );
  expect(response?.status).toBe(200);
  expect(await mocks.store.list()).toEqual([{ id: 7n, name: 'Fern' }]);
});
