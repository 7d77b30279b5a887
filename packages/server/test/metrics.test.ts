// The request and insert histograms are recorded by the server itself and handed to prom-client when
// scraped, the request counter is prom-client's (src/internal/metrics.ts): their exposition must be
// what prom-client's own Histogram and Counter give for the same answers (status "aborted" for a
// client that left, code "" for a success), across scrapes, on one process and summed over workers
// by prom-client's AggregatorRegistry.
import { createMemoryStore, createPlantStoreApp, ErrorCode } from '@plant-store/core';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { createMetrics } from '../src/internal/metrics.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
// On a bound (a bucket's bound is inclusive), between bounds, under the first, past the last.
const SECONDS = [0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.25, 0.2500001, 5, 7.5, 0];

/** The sample lines of one metric family, sorted, with each line's labels in name order. */
function samples(text: string, family: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(family) && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (.+)$/.exec(line)!;
      const labels = (match[2] ?? '').split(',').filter(Boolean).sort().join(',');
      return `${match[1]}{${labels}} ${Number(match[3])}`;
    })
    .sort();
}

function reference(): { registry: Registry; duration: Histogram; requests: Counter } {
  const registry = new Registry();
  return {
    registry,
    duration: new Histogram({
      name: 'plant_store_http_request_duration_seconds',
      help: 'x',
      labelNames: ['status'],
      buckets: BUCKETS,
      registers: [registry],
    }),
    requests: new Counter({
      name: 'plant_store_http_requests_total',
      help: 'x',
      labelNames: ['status', 'code'],
      registers: [registry],
    }),
  };
}

const answers: Array<[number | undefined, ErrorCode | undefined]> = [
  [200, undefined],
  [400, ErrorCode.ID_CONFLICT],
  [undefined, undefined],
];

it('exposes the request histogram and counter exactly as prom-client would, across scrapes', async () => {
  const ours = createMetrics(createMemoryStore(), { version: 'test' });
  const ref = reference();
  const observe = (round: number) => {
    SECONDS.forEach((seconds, i) => {
      const [status, errorCode] = answers[(i + round) % answers.length]!;
      ours.observeRequest(status, errorCode, seconds);
      const label = status === undefined ? 'aborted' : String(status);
      ref.duration.observe({ status: label }, seconds);
      ref.requests.inc({ status: label, code: errorCode === ErrorCode.ID_CONFLICT ? '40003' : '' });
    });
  };
  observe(0);
  for (const family of ['plant_store_http_request_duration_seconds', 'plant_store_http_requests_total']) {
    expect(samples(await ours.registry.metrics(), family)).toEqual(samples(await ref.registry.metrics(), family));
  }
  // A second scrape counts nothing twice, and what came in between is added.
  await ours.registry.metrics();
  observe(1);
  for (const family of ['plant_store_http_request_duration_seconds', 'plant_store_http_requests_total']) {
    const text = await ours.registry.metrics();
    expect(samples(text, family)).toEqual(samples(await ref.registry.metrics(), family));
    expect(samples(text, family).length).toBeGreaterThanOrEqual(3);
  }
});

it('times inserts by outcome in the same histogram form', async () => {
  const ours = createMetrics(createMemoryStore(), { version: 'test' });
  const app = createPlantStoreApp({ tokens: ['t'], onInsert: ours.observeInsert });
  for (const _ of [1, 2]) {
    const answer = await app.fetch(
      new Request('http://localhost/plants', {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"id":1,"name":"Fern"}',
      }),
    );
    expect(answer.status).toBe(200);
  }
  const lines = samples(await ours.registry.metrics(), 'plant_store_store_insert_duration_seconds');
  expect(lines).toContain('plant_store_store_insert_duration_seconds_count{outcome="created"} 1');
  expect(lines).toContain('plant_store_store_insert_duration_seconds_count{outcome="existing"} 1');
  expect(lines).toContain('plant_store_store_insert_duration_seconds_bucket{le="+Inf",outcome="created"} 1');
});

it('sums over workers as prom-client sums its own histograms', async () => {
  const workers = [
    createMetrics(createMemoryStore(), { version: 'test' }),
    createMetrics(createMemoryStore(), { version: 'test' }),
  ];
  const refs = [reference(), reference()];
  for (const [w, metrics] of workers.entries()) {
    for (const [i, seconds] of SECONDS.entries()) {
      if ((i + w) % 2 !== 0) continue;
      metrics.observeRequest(200, undefined, seconds);
      refs[w]!.duration.observe({ status: '200' }, seconds);
      refs[w]!.requests.inc({ status: '200', code: '' });
    }
  }
  const summed = async (registries: Registry[]) =>
    AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON()))).metrics();
  const ours = await summed(workers.map((w) => w.registry));
  const theirs = await summed(refs.map((r) => r.registry));
  for (const family of ['plant_store_http_request_duration_seconds', 'plant_store_http_requests_total']) {
    expect(samples(ours, family)).toEqual(samples(theirs, family));
  }
});
