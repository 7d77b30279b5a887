// The client in an app traced by the OpenTelemetry Node SDK with undici's instrumentation (Node's fetch
// is undici): one trace from the app's span to the server's. This test's process is the app (vitest
// runs each file in a process of its own, so the SDK registered here is this file's alone): its span
// calls the client's createPlant through a proxy on 127.0.0.1 that answers the first attempt 503 with
// Retry-After: 0 and forwards the next to a real `plant-store-server --otel`. The instrumentation makes
// a CLIENT span per attempt and sends its id in the traceparent; the server's SERVER span is the child
// of the second attempt's. Both processes export to one OTLP receiver, as to a collector.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { createPlant } from '@plant-store/client';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { exporterEnv, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { spansFrom, startServer, TOKEN } from './traced-cli.js';

let receiver: OtlpReceiver;
let sdk: NodeSDK;
let sdkRunning = false;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The app's SDK, set up as the server's is, by OTEL_* variables (read as it starts).
  for (const [name, value] of Object.entries({
    ...exporterEnv(receiver, 'http/protobuf'),
    OTEL_SERVICE_NAME: 'plant-store-app',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_LOGS_EXPORTER: 'none',
  })) {
    vi.stubEnv(name, value);
  }
  sdk = new NodeSDK({ instrumentations: [new UndiciInstrumentation()] });
  sdk.start();
  sdkRunning = true;
  vi.unstubAllEnvs();
});
/** Exports what the app's SDK still holds and stops it (once). */
async function stopSdk(): Promise<void> {
  if (!sdkRunning) return;
  sdkRunning = false;
  await sdk.shutdown();
}

afterAll(async () => {
  await stopSdk();
  await receiver?.close();
});

/** What the proxy saw of each attempt. */
interface Attempt {
  readonly traceparent: string | undefined;
  readonly answered: number;
}

/**
 * A proxy in front of `target`: the first request answered 503 (Retry-After: 0, the service's 50301
 * body), every later one forwarded as it came, headers included.
 */
async function startFlakyProxy(target: string): Promise<{ url: string; attempts: Attempt[]; close(): Promise<void> }> {
  const attempts: Attempt[] = [];
  const proxy: Server = createServer((req, res) => {
    const traceparent = req.headers.traceparent as string | undefined;
    if (attempts.length === 0) {
      attempts.push({ traceparent, answered: 503 });
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: 50301, message: 'the plant store is unavailable; retry later' }));
      return;
    }
    const forwarded = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      attempts.push({ traceparent, answered: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', (error) => res.destroy(error));
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}

it("makes one trace: the app's span, a CLIENT span per attempt, the server's SERVER span under the second attempt", async () => {
  // Killed after the test if it is still running (cli-process.ts).
  const server = await startServer(['--otel'], exporterEnv(receiver, 'http/json'));
  const proxy = await startFlakyProxy(new URL(server.url).origin);
  let app = { traceId: '', spanId: '' };
  try {
    const plant = await trace.getTracer('plant-store-app').startActiveSpan('add plant', async (span) => {
      try {
        return await createPlant(TOKEN, { id: 1, name: 'Fern' }, { baseUrl: proxy.url });
      } finally {
        span.end();
        app = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
      }
    });
    expect(plant).toEqual({ name: 'Fern' });
  } finally {
    await proxy.close();
  }
  expect(proxy.attempts.map((attempt) => attempt.answered)).toEqual([503, 200]);
  // Out of the SDK's batch now.
  await stopSdk();

  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === app.traceId);
  const spans = await receiver.waitFor(
    (all) => {
      const mine = inTrace(all);
      return mine.some((span) => span.kind === 'server') && mine.some((span) => span.name === 'plant_store.insert');
    },
    15_000,
    "the server's spans in the app's trace",
  );
  const trail = inTrace(spans);
  const fromApp = spansFrom(trail, process.pid);
  const fromServer = spansFrom(trail, server.pid);
  expect(fromApp.length + fromServer.length).toBe(trail.length);

  // The app: its span, the root, and under it one CLIENT span per attempt, in the order sent.
  const root = fromApp.find((span) => span.name === 'add plant')!;
  expect(root).toMatchObject({ spanId: app.spanId, parentSpanId: undefined });
  expect(root.resource['service.name']).toBe('plant-store-app');
  const calls = fromApp
    .filter((span) => span.kind === 'client')
    .sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
  expect(fromApp).toHaveLength(3);
  expect(calls.map((span) => [span.name, span.parentSpanId, span.attributes['http.response.status_code']])).toEqual([
    ['POST', root.spanId, 503],
    ['POST', root.spanId, 200],
  ]);
  expect(calls[0]!.status.code).toBe('error');
  expect(calls[0]!.attributes['error.type']).toBe('503');
  expect(calls[1]!.status.code).toBe('unset');
  for (const call of calls) expect(call.attributes['url.full']).toBe(`${new URL(proxy.url).origin}/plants`);
  // Each attempt carried its own span's id.
  expect(proxy.attempts.map((attempt) => attempt.traceparent)).toEqual(
    calls.map((call) => `00-${app.traceId}-${call.spanId}-01`),
  );

  // The server: its SERVER span the child of the second attempt's, its insert span under that.
  const [served, ...more] = fromServer.filter((span) => span.kind === 'server');
  expect(more).toEqual([]);
  expect(served).toMatchObject({ name: 'POST /plants', parentSpanId: calls[1]!.spanId });
  expect(served!.attributes['http.response.status_code']).toBe(200);
  expect(served!.resource['service.name']).toBe('plant-store-server');
  expect(fromServer.find((span) => span.name === 'plant_store.insert')?.parentSpanId).toBe(served!.spanId);
  expect(fromServer).toHaveLength(2);
  // Each process exported with its own protocol.
  expect(new Set(fromApp.map((span) => span.contentType))).toEqual(new Set(['application/x-protobuf']));
  expect(new Set(fromServer.map((span) => span.contentType))).toEqual(new Set(['application/json']));
  expect(await server.stop()).toBe(0);
});
