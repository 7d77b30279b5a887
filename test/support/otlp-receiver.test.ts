// The OTLP receiver of the tracing suites, fed by the real exporters: a Node process that starts the
// OpenTelemetry Node SDK (@opentelemetry/sdk-node) set up by OTEL_* variables alone, as
// `plant-store-server --otel` does, records spans with every kind of attribute, an event, a link and
// each status, and shuts the SDK down (which exports them). Each protocol the server may be set to,
// http/json and http/protobuf (gzipped too), must come out as the same spans.
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { context, type HrTime, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exporterEnv, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver?.close());

/** What the child records, then prints: the ids of its spans and its pid. */
const RECORD_SPANS = `
import { NodeSDK } from '@opentelemetry/sdk-node';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
const sdk = new NodeSDK({ instrumentations: [] });
sdk.start();
const tracer = trace.getTracer('otlp-receiver-test', '1.2.3');
const linked = tracer.startSpan('linked', { kind: SpanKind.INTERNAL });
linked.end();
const root = tracer.startSpan('root', {
  kind: SpanKind.SERVER,
  attributes: { text: 'Fern', whole: 42, negative: -7, fraction: 1.5, yes: true, no: false, names: ['a', 'b'], counts: [1, 2] },
});
root.addEvent('happened', { 'event.detail': 'x', count: 3 });
root.setStatus({ code: SpanStatusCode.ERROR, message: 'it broke' });
const child = tracer.startSpan(
  'child',
  { kind: SpanKind.CLIENT, links: [{ context: linked.spanContext(), attributes: { why: 'because' } }] },
  trace.setSpan(context.active(), root),
);
child.setStatus({ code: SpanStatusCode.OK });
child.end();
root.end();
await sdk.shutdown();
const ids = (span) => ({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
process.stdout.write(JSON.stringify({ root: ids(root), child: ids(child), linked: ids(linked), pid: process.pid }));
`;

interface Recorded {
  readonly root: { traceId: string; spanId: string };
  readonly child: { traceId: string; spanId: string };
  readonly linked: { traceId: string; spanId: string };
  readonly pid: number;
}

/** Runs the child with `env` over the environment (at most 30 s) and reads what it printed. */
function recordSpans(env: Record<string, string>): Promise<Recorded> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', RECORD_SPANS],
      { env: { ...process.env, ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the SDK's process failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Recorded);
      },
    );
  });
}

describe.each([
  ['http/json', 'none', 'application/json'],
  ['http/protobuf', 'none', 'application/x-protobuf'],
  ['http/protobuf', 'gzip', 'application/x-protobuf'],
] as const)('the SDK exporting over %s (compression %s)', (protocol, compression, contentType) => {
  it('arrives as the spans the process recorded: ids, parents, kinds, attributes, events, links, status, resource, scope', async () => {
    const recorded = await recordSpans({
      ...exporterEnv(receiver, protocol),
      OTEL_EXPORTER_OTLP_COMPRESSION: compression,
      OTEL_SERVICE_NAME: 'otlp-receiver-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    });
    // The shutdown exported them before the process printed and exited: they are here already.
    const mine = receiver.spans.filter((span) => span.resource['process.pid'] === recorded.pid);
    const byName = (name: string) => mine.find((span) => span.name === name);
    expect(mine.map((span) => span.name).sort()).toEqual(['child', 'linked', 'root']);
    expect(new Set(mine.map((span) => span.contentType))).toEqual(new Set([contentType]));
    const carrying = receiver.exports.filter((each) => each.spanIds.includes(recorded.root.spanId));
    expect(carrying.map((each) => each.gzip)).toEqual([compression === 'gzip']);

    const root = byName('root')!;
    expect(root).toMatchObject({
      traceId: recorded.root.traceId,
      spanId: recorded.root.spanId,
      parentSpanId: undefined,
      kind: 'server',
      status: { code: 'error', message: 'it broke' },
      links: [],
      scope: { name: 'otlp-receiver-test', version: '1.2.3' },
    } satisfies Partial<ReceivedSpan>);
    expect(root.attributes).toEqual({
      text: 'Fern',
      whole: 42,
      negative: -7,
      fraction: 1.5,
      yes: true,
      no: false,
      names: ['a', 'b'],
      counts: [1, 2],
    });
    expect(root.events).toEqual([{ name: 'happened', attributes: { 'event.detail': 'x', count: 3 } }]);
    expect(root.endTimeUnixNano).toBeGreaterThanOrEqual(root.startTimeUnixNano);
    // Nanoseconds since the epoch: within a minute of now.
    expect(Number(root.startTimeUnixNano / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);

    expect(byName('child')).toMatchObject({
      traceId: recorded.root.traceId,
      spanId: recorded.child.spanId,
      parentSpanId: recorded.root.spanId,
      kind: 'client',
      status: { code: 'ok', message: '' },
      links: [{ traceId: recorded.linked.traceId, spanId: recorded.linked.spanId, attributes: { why: 'because' } }],
      events: [],
    } satisfies Partial<ReceivedSpan>);
    expect(byName('linked')).toMatchObject({
      traceId: recorded.linked.traceId,
      spanId: recorded.linked.spanId,
      kind: 'internal',
      status: { code: 'unset', message: '' },
    } satisfies Partial<ReceivedSpan>);
    expect(recorded.linked.traceId).not.toBe(recorded.root.traceId);
    for (const span of mine) {
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.resource).toMatchObject({
        'service.name': 'otlp-receiver-test',
        'deployment.environment.name': 'test',
        'telemetry.sdk.language': 'nodejs',
      });
    }
  });
});

describe.each([
  ['application/json', JsonTraceSerializer],
  ['application/x-protobuf', ProtobufTraceSerializer],
] as const)("the SDK's own %s serializer", (contentType, serializer) => {
  it('gives back each span exactly: times to the nanosecond, producer and consumer kinds, the largest safe integer', async () => {
    // A provider of this test's own, not registered: its spans go to the in-memory exporter only.
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('serializer-test');
    const start: HrTime = [1_700_000_000, 123_456_789];
    const end: HrTime = [1_700_000_001, 987_654_321];
    const producer = tracer.startSpan('send', {
      kind: SpanKind.PRODUCER,
      startTime: start,
      attributes: {
        largest: Number.MAX_SAFE_INTEGER,
        smallest: Number.MIN_SAFE_INTEGER,
        empty: '',
        flags: [true, false],
      },
    });
    const consumer = tracer.startSpan(
      'receive',
      { kind: SpanKind.CONSUMER, startTime: start, links: [{ context: producer.spanContext() }] },
      trace.setSpan(context.active(), producer),
    );
    consumer.setStatus({ code: SpanStatusCode.ERROR, message: 'späť 🌱' });
    consumer.end(end);
    producer.end(end);
    // Taken before the shutdown, which empties the exporter.
    const spans = exporter.getFinishedSpans();
    await provider.shutdown();
    expect(spans).toHaveLength(2);

    const answer = await send(
      'POST',
      '/v1/traces',
      { 'content-type': contentType },
      serializer.serializeRequest(spans)!,
    );
    expect(answer.status).toBe(200);
    // What the exporters make of the answer: no partial success, nothing rejected.
    expect(serializer.deserializeResponse(new Uint8Array(answer.body))).toEqual({});
    const got = (span: { spanContext(): { spanId: string } }) =>
      receiver.spans.find((each) => each.spanId === span.spanContext().spanId)!;
    const nanos = (time: HrTime) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
    expect(got(producer)).toMatchObject({
      traceId: producer.spanContext().traceId,
      parentSpanId: undefined,
      name: 'send',
      kind: 'producer',
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(end),
      attributes: { largest: 9007199254740991, smallest: -9007199254740991, empty: '', flags: [true, false] },
      scope: { name: 'serializer-test', version: '' },
      contentType,
    } satisfies Partial<ReceivedSpan>);
    expect(got(consumer)).toMatchObject({
      traceId: producer.spanContext().traceId,
      parentSpanId: producer.spanContext().spanId,
      kind: 'consumer',
      startTimeUnixNano: 1_700_000_000_123_456_789n,
      endTimeUnixNano: 1_700_000_001_987_654_321n,
      links: [{ traceId: producer.spanContext().traceId, spanId: producer.spanContext().spanId, attributes: {} }],
      status: { code: 'error', message: 'späť 🌱' },
    } satisfies Partial<ReceivedSpan>);
  });
});

/** One raw request to the receiver; resolves to the status, the content type and the body. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
): Promise<{ status: number; contentType: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${receiver.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

it('answers an export with an empty ExportTraceServiceResponse in its own media type, and counts it', async () => {
  const before = receiver.exports.length;
  const json = await send('POST', '/v1/traces', { 'content-type': 'application/json; charset=utf-8' }, '{}');
  expect([json.status, json.contentType, json.body.toString()]).toEqual([200, 'application/json', '{}']);
  const proto = await send('POST', '/v1/traces', { 'content-type': 'application/x-protobuf' }, new Uint8Array());
  // The empty message is zero bytes in protobuf.
  expect([proto.status, proto.contentType, proto.body.length]).toEqual([200, 'application/x-protobuf', 0]);
  expect(receiver.exports.slice(before)).toEqual([
    { contentType: 'application/json', gzip: false, spanIds: [] },
    { contentType: 'application/x-protobuf', gzip: false, spanIds: [] },
  ]);
});

it('refuses what is not a trace export: another path, another method, another media type, an undecodable body', async () => {
  const before = receiver.exports.length;
  expect((await send('POST', '/v1/metrics', { 'content-type': 'application/json' }, '{}')).status).toBe(404);
  expect((await send('GET', '/v1/traces', {}, '')).status).toBe(405);
  expect((await send('POST', '/v1/traces', { 'content-type': 'text/plain' }, '{}')).status).toBe(415);
  expect((await send('POST', '/v1/traces', { 'content-type': 'application/json' }, '{"resourceSpans":')).status).toBe(
    400,
  );
  const badId = JSON.stringify({
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'not hex', spanId: '01' }] }] }],
  });
  expect((await send('POST', '/v1/traces', { 'content-type': 'application/json' }, badId)).status).toBe(400);
  // A truncated protobuf message: a length-delimited field that says 10 bytes follow, and none do.
  const truncated = new Uint8Array([0x0a, 0x0a]);
  expect((await send('POST', '/v1/traces', { 'content-type': 'application/x-protobuf' }, truncated)).status).toBe(400);
  expect(receiver.exports.length).toBe(before);
});

it('waitFor resolves once the spans arrive, and rejects after its timeout naming what it waited for and what came', async () => {
  const traceId = 'ab'.repeat(16);
  const export1 = JSON.stringify({
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: 'cd'.repeat(8), name: 'late', kind: 2 }] }] }],
  });
  const waiting = receiver.waitFor((spans) => spans.some((span) => span.traceId === traceId), 5_000);
  await send('POST', '/v1/traces', { 'content-type': 'application/json' }, export1);
  const spans = await waiting;
  expect(spans.find((span) => span.traceId === traceId)).toMatchObject({ name: 'late', kind: 'server' });
  await expect(receiver.waitFor(() => false, 50, 'a span never sent')).rejects.toThrow(
    /a span never sent: not received within 50 ms; received:\n[\s\S]*server late abab/,
  );
});

it('stops listening on close', async () => {
  const other = await startOtlpReceiver();
  await other.close();
  const refused = await new Promise<string | undefined>((resolve) => {
    const req = request(`${other.url}/v1/traces`, { method: 'POST' }, () => resolve(undefined));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    req.end();
  });
  expect(refused).toBe('ECONNREFUSED');
});
