// Client overhead: sequential `createPlant` calls against a trivial server (another process, on
// the other core) vs the same request made with raw `fetch` (same URL, headers and body, same
// status check and JSON read). Usage: node client-bench.mjs '<json {url, token, calls}>'.
import { createPlant } from '@plant-store/client';
import { alternate } from './alternate.mjs';

const { url, token, calls = 3000, rounds = 10 } = JSON.parse(process.argv[2]);
const endpoint = new URL('plants', `${url}/`).href;
const plant = (i) => ({ id: 1_000_000 + i, name: 'Monstera deliciosa', tag: 'indoor' });

const results = await alternate(
  [
    {
      name: 'createPlant',
      async call(i) {
        await createPlant(token, plant(i), { baseUrl: url });
      },
    },
    {
      name: 'raw fetch',
      async call(i) {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(plant(i)),
        });
        const body = await response.json();
        if (!response.ok) throw new Error(`status ${response.status}: ${JSON.stringify(body)}`);
      },
    },
  ],
  { warmup: 500, rounds, perRound: Math.ceil(calls / rounds) },
);
process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
