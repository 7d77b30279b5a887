// The client benchmark's contenders, shared by the timed run (client-bench.mjs) and the
// instruction count (client-instructions.mjs): `createPlant`, the same request by hand, and the same
// request through openapi-fetch used as its README shows (what a user would pick instead).
import { createPlant } from '@plant-store/client';
import createClient from 'openapi-fetch';

/** @returns {{ name: string, call(i: number): Promise<void> }[]} */
export function clientContenders(url, token) {
  const endpoint = new URL('plants', `${url}/`).href;
  const plant = (i) => ({ id: 1_000_000 + i, name: 'Monstera deliciosa', tag: 'indoor' });
  async function rawFetch(i, signal) {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(plant(i)),
      signal,
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`status ${response.status}: ${JSON.stringify(body)}`);
  }
  const openapi = createClient({ baseUrl: url });
  return [
    {
      // Defaults: no timeout (as fetch), 2 retries, int64 ids, typed errors.
      name: 'createPlant',
      async call(i) {
        await createPlant(token, plant(i), { baseUrl: url });
      },
    },
    {
      // With a timeout set, as an app that must not wait on a hung service would: compare it with
      // 'raw fetch + timeout', the same request by hand with the same timeout.
      name: 'createPlant + timeout',
      async call(i) {
        await createPlant(token, plant(i), { baseUrl: url, timeout: 30_000 });
      },
    },
    { name: 'raw fetch', call: (i) => rawFetch(i) },
    {
      // openapi-fetch alone, defaults: no timeout, no retries, no int64 ids, no typed errors.
      name: 'openapi-fetch',
      async call(i) {
        const { error, response } = await openapi.POST('/plants', {
          body: plant(i),
          headers: { authorization: `Bearer ${token}` },
        });
        if (error !== undefined) throw new Error(`status ${response.status}: ${JSON.stringify(error)}`);
      },
    },
    {
      // What a 30 s timeout costs by itself: the same raw fetch with an AbortController's signal
      // and a timer, as a hand-written call with a timeout would do.
      name: 'raw fetch + timeout',
      async call(i) {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 30_000);
        try {
          await rawFetch(i, controller.signal);
        } finally {
          clearTimeout(timer);
        }
      },
    },
  ];
}
