// Which msw the MSW suites ran on: msw 2 in `npm test`, msw 3 where vitest.msw3.config.ts maps `msw` to
// the `msw3` alias (PLANT_STORE_MSW_MAJOR=3). A run that silently loaded the other copy, in the tests or
// inside @plant-store/msw, fails here instead of reporting msw 2's results as msw 3's.
// On each major it also checks that the README's mocks quick start keeps its guard on unhandled requests.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { getResponse, HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

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

// The README's mocks quick start passes one options object to `listen()` that names both majors' option
// (msw 2 reads onUnhandledRequest, msw 3 onUnhandledFrame): on this major, a request no handler answers
// must fail with it, and with msw 2's option alone it must fail on msw 2 only (msw 3 lets it through).
it(`keeps the README's guard on msw ${expectedMajor}: a request no handler answers fails`, async () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const quickStart = readme.slice(readme.indexOf('### Mock the service in tests'));
  const literal = /const strict = (\{[^}]*\}) as const;\nbeforeAll\(\(\) => server\.listen\(strict\)\);/.exec(
    quickStart,
  )?.[1];
  expect(literal, "the README's quick start passes `strict` to listen()").toBeDefined();
  const strict = JSON.parse(literal!.replace(/'/g, '"').replace(/(\w+):/g, '"$1":')) as object;

  const elsewhere = createServer((_, response) => response.end('from the network'));
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`;
  const reached = async (options: object) => {
    const server = setupServer(...createPlantStoreHandlers().handlers);
    server.listen(options);
    try {
      return await fetch(url).then(
        () => true,
        () => false,
      );
    } finally {
      server.close();
    }
  };
  try {
    expect(await reached(strict)).toBe(false);
    expect(await reached({ onUnhandledRequest: 'error' })).toBe(expectedMajor !== '2');
  } finally {
    elsewhere.close();
  }
});
