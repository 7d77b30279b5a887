// The operations listener: liveness, readiness that follows the store, and Prometheus metrics whose
// counts equal the requests sent, read with a Prometheus text-format parser.
import { createMemoryStore, type MemoryStore, StoreUnavailableError } from '@plant-store/core';
import parsePrometheus from 'parse-prometheus-text-format';
import { expect, it } from 'vitest';
import { createPlant, serve } from './helpers.js';

interface Family {
  name: string;
  type: string;
  metrics: Array<{ value?: string; labels?: Record<string, string>; count?: string; buckets?: Record<string, string> }>;
}

async function scrape(opsUrl: string): Promise<Family[] & { text: string }> {
  const res = await fetch(`${opsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return Object.assign(parsePrometheus(text) as Family[], { text });
}

/**
 * The `_count` samples of a histogram by label set, read from the text: the parser keeps a histogram's
 * buckets but drops its labels and counts when it has labels of its own.
 */
function histogramCounts(text: string, name: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [, labels, value] of text.matchAll(new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    counts[labels!] = Number(value);
  }
  return counts;
}

const family = (families: Family[], name: string) => families.find((f) => f.name === name);

/** Waits (at most 5 s) until /readyz answers `status`, and returns its body. */
async function readyz(opsUrl: string, status: number): Promise<{ status: string; reason: string }> {
  let last: Response | undefined;
  for (let i = 0; i < 100; i++) {
    last = await fetch(`${opsUrl}/readyz`);
    if (last.status === status) return (await last.json()) as { status: string; reason: string };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/readyz stayed ${last?.status}`);
}

it('answers /livez, /readyz and /metrics on its own port, and nothing of the API there', async () => {
  const server = await serve({ ops: { port: 0 } });
  expect(server.opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect((await fetch(`${server.opsUrl}/livez`)).status).toBe(200);
  expect(await readyz(server.opsUrl!, 200)).toEqual({ status: 'ready', reason: 'ready' });
  expect((await fetch(`${server.opsUrl}/plants`, { method: 'POST' })).status).toBe(405);
  expect((await fetch(`${server.opsUrl}/nope`)).status).toBe(404);
  // And the API port has no operations endpoints: the spec's 404.
  expect((await fetch(`${server.url}/livez`)).status).toBe(404);
  const families = await scrape(server.opsUrl!);
  expect(family(families, 'plant_store_build_info')?.metrics[0]?.labels).toMatchObject({ node: process.version });
  expect(family(families, 'process_cpu_user_seconds_total')).toBeDefined();
});

it('counts every request by status and error code, and times them', async () => {
  const server = await serve({ ops: { port: 0 } });
  for (let id = 1; id <= 5; id++) expect((await createPlant(server, `{"id":${id},"name":"Fern"}`)).status).toBe(200);
  await createPlant(server, '{"id":1,"name":"Oak"}'); // 40003
  await createPlant(server, '{"id":'); // 40001
  await createPlant(server, '{"id":'); // 40001
  await createPlant(server, '{"id":9,"name":"x"}', { authorization: 'Bearer wrong' }); // 40102
  const families = await scrape(server.opsUrl!);
  const counts = Object.fromEntries(
    family(families, 'plant_store_http_requests_total')!.metrics.map((m) => [
      `${m.labels!.status} ${m.labels!.code}`,
      Number(m.value),
    ]),
  );
  expect(counts).toEqual({ '200 ': 5, '400 40003': 1, '400 40001': 2, '401 40102': 1 });
  expect(family(families, 'plant_store_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
  expect(histogramCounts(families.text, 'plant_store_http_request_duration_seconds')).toEqual({
    'status="200"': 5,
    'status="400"': 3,
    'status="401"': 1,
  });
  expect(histogramCounts(families.text, 'plant_store_store_insert_duration_seconds')).toEqual({
    'outcome="created"': 5,
    'outcome="existing"': 1,
  });
});

it('follows the store on /readyz: 503 with the reason within about a second of it failing, 200 once it is back', async () => {
  let down = false;
  const memory = createMemoryStore();
  const store: MemoryStore = {
    ...memory,
    checkHealth: async () => {
      if (down) throw new StoreUnavailableError('the database at db:5432 refused the connection');
    },
    insert: async (plant) => {
      if (down) throw new StoreUnavailableError('the database at db:5432 refused the connection');
      return memory.insert(plant);
    },
  };
  const log: string[] = [];
  const server = await serve({ store, ops: { port: 0 }, log: { write: (line: string) => log.push(line) } });
  await readyz(server.opsUrl!, 200);
  down = true;
  expect(await readyz(server.opsUrl!, 503)).toEqual({
    status: 'unavailable',
    reason: 'StoreUnavailableError: the database at db:5432 refused the connection',
  });
  const refused = await createPlant(server, '{"id":1,"name":"Fern"}');
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  down = false;
  expect(await readyz(server.opsUrl!, 200)).toMatchObject({ status: 'ready' });
  const events = log.map((line) => JSON.parse(line) as { message: string; level: string; errorCode?: number });
  // The outage and the return are logged once each, however many checks ran meanwhile.
  expect(events.filter((e) => e.message === 'store unavailable')).toEqual([
    expect.objectContaining({ level: 'error' }),
  ]);
  expect(events.filter((e) => e.message === 'store available again')).toHaveLength(1);
  expect(events.find((e) => e.message === 'request')).toMatchObject({ errorCode: 50301 });
});

it('answers /readyz 503 "draining" while it closes, before the operations listener goes', async () => {
  const store = createMemoryStore();
  let release: () => void = () => {};
  const slow: MemoryStore = {
    ...store,
    insert: (plant) => new Promise((resolve) => (release = () => resolve(store.insert(plant)))),
  };
  const server = await serve({ store: slow, ops: { port: 0 } });
  await readyz(server.opsUrl!, 200);
  const inFlight = createPlant(server, '{"id":1,"name":"Fern"}');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closing = server.close();
  expect(await readyz(server.opsUrl!, 503)).toEqual({ status: 'draining', reason: 'shutting down' });
  release();
  expect((await inFlight).status).toBe(200);
  await closing;
  await expect(fetch(`${server.opsUrl}/livez`)).rejects.toThrow();
});

it('writes only the lines at or above its log level', async () => {
  const lines: string[] = [];
  const server = await serve({ log: { write: (line: string) => lines.push(line) }, logLevel: 'warn' });
  await createPlant(server, '{"id":1,"name":"Fern"}');
  await server.close();
  expect(lines).toEqual([]);
  await expect(serve({ log: true, logLevel: 'verbose' as 'warn' })).rejects.toThrow(/logLevel must be one of/);
});
