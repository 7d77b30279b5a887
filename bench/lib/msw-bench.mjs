// Mock overhead: one create through `@plant-store/msw`'s handlers in `setupServer` vs through a
// trivial handler that returns the same JSON, with the same raw `fetch` on both sides.
// Usage: node msw-bench.mjs '<json {calls}>'.
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { alternate } from './alternate.mjs';

const { calls = 6000, rounds = 10 } = JSON.parse(process.argv[2] ?? '{}');
const BASE = 'http://plant-store.test';
const TOKEN = 'bench-token';
const ours = createPlantStoreHandlers({ baseUrl: BASE }).handlers;
const trivial = [http.post(`${BASE}/plants`, () => HttpResponse.json({ name: 'Monstera deliciosa', tag: 'indoor' }))];

const server = setupServer(...ours);
server.listen({ onUnhandledRequest: 'error' });

async function create(i) {
  const response = await fetch(`${BASE}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1_000_000 + i, name: 'Monstera deliciosa', tag: 'indoor' }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`status ${response.status}: ${JSON.stringify(body)}`);
}

// One interceptor for both sides; `resetHandlers(...next)` swaps the handler set between batches
// so that only the handler differs.
const results = await alternate(
  [
    { name: '@plant-store/msw', enter: () => server.resetHandlers(...ours), call: create },
    { name: 'trivial handler', enter: () => server.resetHandlers(...trivial), call: create },
  ],
  { warmup: 300, rounds, perRound: Math.ceil(calls / rounds) },
);
server.close();
process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
