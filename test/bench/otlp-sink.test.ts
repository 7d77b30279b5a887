// The tracing part's OTLP sink (bench/lib/otlp-sink.mjs) counts the spans a traced server exports,
// in either OTLP/HTTP encoding, per key; and the fastify baseline with `otel` (the part's peer) is
// traced through the SDK and @fastify/otel while answering as it does untraced. Spans per request
// are a row of the part: a miscounted export, or a peer whose spans never reach the sink, would make
// that row, and the comparison, wrong.
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error the bench is plain JavaScript without declarations
import { startOtlpSink } from '../../bench/lib/otlp-sink.mjs';
// @ts-expect-error the bench is plain JavaScript without declarations
import { startServer } from '../../bench/lib/serve.mjs';

interface Totals {
  exports: number;
  bytes: number;
  spans: number;
  failed: number;
}
interface Sink {
  url: string;
  endpoint(key: string): string;
  totals(key: string): Totals;
  stop(): Promise<Record<string, Totals>>;
}
interface Running {
  url: string;
  stop(): Promise<{ code: number | null }>;
}
const startSink = startOtlpSink as () => Promise<Sink>;
const start = startServer as (kind: string, options: object, how?: object) => Promise<Running>;

const TOKEN = 'sink-test-token';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `stop`, called once whether the test or its cleanup gets there first. */
function once<T>(stop: () => Promise<T>): () => Promise<T> {
  let stopping: Promise<T> | undefined;
  const stopOnce = () => {
    stopping ??= stop();
    return stopping;
  };
  cleanups.push(stopOnce);
  return stopOnce;
}

async function create(url: string, id: number): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'Fern', tag: 'green' }),
  });
  return { status: response.status, body: await response.text() };
}

describe('the fastify baseline traced, exporting to the sink', () => {
  for (const protocol of ['http/protobuf', 'http/json']) {
    it(`counts its request, hook and handler spans per create (${protocol})`, async () => {
      const sink = await startSink();
      const stopSink = once(() => sink.stop());
      const env = {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint('fastify'),
        OTEL_TRACES_SAMPLER: 'always_on',
      };
      const traced = await start('fastify', { tokens: [TOKEN], otel: true }, { env });
      const stopTraced = once(() => traced.stop());
      const plain = await start('fastify', { tokens: [TOKEN] });
      once(() => plain.stop());
      for (let id = 1; id <= 4; id++) {
        expect(await create(traced.url, id)).toEqual(await create(plain.url, id));
      }
      // Its exit exports what the batch processor still holds.
      expect((await stopTraced()).code).toBe(0);
      const result = await stopSink();
      // The request span, the span of its onRequest hook and the handler's, for each of the 4.
      expect(result.fastify).toMatchObject({ spans: 12, failed: 0 });
      expect(result.fastify!.exports).toBeGreaterThanOrEqual(1);
      expect(result.fastify!.bytes).toBeGreaterThan(0);
      expect(Object.keys(result)).toEqual(['fastify']);
    });
  }
});

it('answers 200 to what it cannot read, counting it, and 404 off the traces path', async () => {
  const sink = await startSink();
  once(() => sink.stop());
  const post = (path: string, type: string, body: string | Uint8Array<ArrayBuffer>) =>
    fetch(`${sink.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body }).then(
      (response) => response.status,
    );
  // A tag of wire type 2 whose length runs past the end.
  expect(await post('/a/v1/traces', 'application/x-protobuf', new Uint8Array([0x0a, 0x05, 0x01]))).toBe(200);
  expect(await post('/a/v1/traces', 'application/json', '{"resourceSpans":[{"scopeSpans":[{"spans":[{},{}]}]}]}')).toBe(
    200,
  );
  expect(await post('/v1/traces', 'application/json', '{}')).toBe(200);
  expect(await post('/v1/metrics', 'application/json', '{}')).toBe(404);
  await expect.poll(() => sink.totals('a').exports).toBe(2);
  expect(sink.totals('a')).toMatchObject({ spans: 2, failed: 1, bytes: 3 + 54 });
  expect(sink.totals('')).toMatchObject({ exports: 1, spans: 0, failed: 0 });
});
