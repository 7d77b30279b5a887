// `plant-store-server --otel` end to end: the built CLI as a child process, its OpenTelemetry Node SDK
// set up by OTEL_* variables alone, exporting to an OTLP receiver in this process. What a collector gets
// per create: the SERVER span (continuing a caller's traceparent, or a new trace), the
// `plant_store.insert` span under it, and on the file store the span of each write and fsync, linked to
// every request it made durable; the same ids on each `--log` request line; every span exported by the
// time the process exits on SIGTERM, and a line on stderr when the collector refused them.
// PLANT_STORE_OTEL=1 is the flag's variable.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exporterEnv, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import {
  callerSpan,
  createPlant,
  requestLines,
  requestSpans,
  spansFrom,
  startServer,
  type TracedServer,
} from './traced-cli.js';

let receiver: OtlpReceiver;
const work = mkdtempSync(join(tmpdir(), 'plant-store-cli-tracing-'));
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

const OTEL = ['--otel', '--log'];
const CONFLICT = 40003;

/** Waits for `count` SERVER spans of `server`'s process, each with its insert span when `inserts`. */
async function waitForRequests(server: TracedServer, count: number, inserts = count) {
  const spans = await receiver.waitFor(
    (all) => {
      const mine = requestSpans(spansFrom(all, server.pid));
      return mine.length >= count && mine.filter((each) => each.insert !== undefined).length >= inserts;
    },
    15_000,
    `${count} request spans from pid ${server.pid}`,
  );
  return spansFrom(spans, server.pid);
}

it('traces the memory store over http/json: a traceparent continued, a new trace, a conflict without ERROR, the log ids', async () => {
  const server = await startServer(OTEL, exporterEnv(receiver, 'http/json'));
  const port = Number(new URL(server.url).port);
  const caller = callerSpan();
  const continued = await createPlant(
    server.url,
    { id: 1, name: 'Fern' },
    { traceparent: caller.traceparent, 'x-request-id': 'continued', 'user-agent': 'cli-tracing/1' },
  );
  const fresh = await createPlant(server.url, { id: 2, name: 'Ivy' }, { 'x-request-id': 'fresh' });
  const conflict = await createPlant(server.url, { id: 1, name: 'Not Fern' }, { 'x-request-id': 'conflict' });
  expect([continued.status, fresh.status, conflict.status]).toEqual([200, 200, 400]);
  expect(JSON.parse(conflict.body).error).toBe(CONFLICT);

  const spans = await waitForRequests(server, 3);
  const requests = requestSpans(spans);
  const byTrace = (traceId: string) => requests.find((each) => each.server.traceId === traceId)!;
  // Only the core's spans: the SDK is given no instrumentation, and the memory store has no batches.
  expect(spans.map((span) => `${span.kind} ${span.name}`).sort()).toEqual([
    'internal plant_store.insert',
    'internal plant_store.insert',
    'internal plant_store.insert',
    'server POST /plants',
    'server POST /plants',
    'server POST /plants',
  ]);
  for (const span of spans) {
    expect(span.contentType).toBe('application/json');
    expect(span.resource['service.name']).toBe('plant-store-server');
    expect(span.scope.name).toBe('@plant-store/core');
  }

  // The caller's trace, as the child of the caller's span.
  const first = byTrace(caller.traceId);
  expect(first.server).toMatchObject({
    parentSpanId: caller.spanId,
    name: 'POST /plants',
    status: { code: 'unset', message: '' },
  } satisfies Partial<ReceivedSpan>);
  expect(first.server.attributes).toEqual({
    'http.request.method': 'POST',
    'url.path': '/plants',
    'http.route': '/plants',
    'server.address': '127.0.0.1',
    'server.port': port,
    'user_agent.original': 'cli-tracing/1',
    'http.response.status_code': 200,
  });
  expect(first.insert).toMatchObject({
    traceId: caller.traceId,
    attributes: { 'plant_store.insert.outcome': 'created' },
  });

  // No traceparent: a trace of its own, the SERVER span its root.
  const others = requests.filter((each) => each.server.traceId !== caller.traceId);
  expect(others).toHaveLength(2);
  const created = others.find((each) => each.server.attributes['http.response.status_code'] === 200)!;
  expect(created.server.parentSpanId).toBeUndefined();
  expect(created.server.traceId).toMatch(/^[0-9a-f]{32}$/);

  // The conflict: a 400 with its error code, the status left unset, the insert found the id taken.
  const refused = others.find((each) => each.server.attributes['http.response.status_code'] === 400)!;
  expect(refused.server.parentSpanId).toBeUndefined();
  expect(refused.server.attributes['plant_store.error_code']).toBe(CONFLICT);
  expect(refused.server.attributes).not.toHaveProperty('error.type');
  expect(refused.server.status.code).toBe('unset');
  expect(refused.insert!.attributes).toEqual({ 'plant_store.insert.outcome': 'existing' });
  expect(new Set(requests.map((each) => each.server.traceId)).size).toBe(3);

  expect(await server.stop()).toBe(0);
  const lines = requestLines(server.run.stderr);
  const ids = (line: { trace_id?: string; span_id?: string } | undefined) => [line?.trace_id, line?.span_id];
  const lineOf = (requestId: string) => lines.find((line) => line.requestId === requestId);
  expect(lines).toHaveLength(3);
  expect(ids(lineOf('continued'))).toEqual([caller.traceId, first.server.spanId]);
  expect(ids(lineOf('fresh'))).toEqual([created.server.traceId, created.server.spanId]);
  expect(ids(lineOf('conflict'))).toEqual([refused.server.traceId, refused.server.spanId]);
  expect(lineOf('conflict')?.errorCode).toBe(CONFLICT);
});

it('traces the --data file store over http/protobuf: each write and fsync a span, the child of a request, linked to each', async () => {
  const server = await startServer(
    [...OTEL, '--data', join(work, 'plants.log')],
    exporterEnv(receiver, 'http/protobuf'),
  );
  const callers = Array.from({ length: 6 }, () => callerSpan());
  // At once, so that some share a write; half with a caller's trace, half in traces of their own.
  const answers = await Promise.all(
    callers.map((caller, i) =>
      createPlant(
        server.url,
        { id: 100 + i, name: `Plant ${i}` },
        i % 2 === 0 ? { traceparent: caller.traceparent } : {},
      ),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const spans = await receiver.waitFor(
    (all) => {
      const mine = spansFrom(all, server.pid);
      const linked = mine.filter((span) => span.name === 'plant_store.file.write').flatMap((span) => span.links);
      return requestSpans(mine).filter((each) => each.insert).length >= 6 && linked.length >= 6;
    },
    15_000,
    'six requests and the writes that made them durable',
  );
  const mine = spansFrom(spans, server.pid);
  expect(new Set(mine.map((span) => span.contentType))).toEqual(new Set(['application/x-protobuf']));
  const requests = requestSpans(mine);
  expect(requests).toHaveLength(6);
  // The traceparents were continued.
  for (const [i, caller] of callers.entries()) {
    if (i % 2 === 0) expect(requests.some((each) => each.server.parentSpanId === caller.spanId)).toBe(true);
  }
  const writes = mine.filter((span) => span.name === 'plant_store.file.write');
  const inserts = requests.map((each) => each.insert!);
  for (const write of writes) {
    expect(write.kind).toBe('internal');
    expect(write.links.length).toBeGreaterThan(0);
    expect(write.attributes['plant_store.batch.size']).toBe(write.links.length);
    // The child of the first request it serves: its parent is the insert span of its first link.
    expect([write.traceId, write.parentSpanId]).toEqual([write.links[0]!.traceId, write.links[0]!.spanId]);
    for (const link of write.links) {
      expect(inserts.some((insert) => insert.traceId === link.traceId && insert.spanId === link.spanId)).toBe(true);
    }
  }
  // Every request's insert is linked from exactly one write.
  const linked = writes.flatMap((write) => write.links.map((link) => `${link.traceId}/${link.spanId}`)).sort();
  expect(linked).toEqual(inserts.map((insert) => `${insert.traceId}/${insert.spanId}`).sort());
  expect(await server.stop()).toBe(0);
});

it('exports the spans of the last request before it exits on SIGTERM: the shutdown flushes them', async () => {
  // Ten minutes between the batch processor's exports: only the shutdown sends anything.
  const server = await startServer(OTEL, exporterEnv(receiver, 'http/json', 600_000));
  const caller = callerSpan();
  const answer = await createPlant(server.url, { id: 1, name: 'Fern' }, { traceparent: caller.traceparent });
  expect(answer.status).toBe(200);
  expect(spansFrom(receiver.spans, server.pid)).toEqual([]);
  expect(await server.stop()).toBe(0);
  // The process has exited: whatever it exported is here, with nothing more to wait for.
  const mine = spansFrom(receiver.spans, server.pid);
  expect(mine.map((span) => `${span.traceId} ${span.name}`).sort()).toEqual([
    `${caller.traceId} POST /plants`,
    `${caller.traceId} plant_store.insert`,
  ]);
});

it('traces with PLANT_STORE_OTEL=1 as with --otel (OTEL_SERVICE_NAME naming the service), and exports nothing without either', async () => {
  const traced = await startServer(['--log'], {
    ...exporterEnv(receiver, 'http/protobuf'),
    PLANT_STORE_OTEL: '1',
    OTEL_SERVICE_NAME: 'plants-east',
  });
  const caller = callerSpan();
  expect((await createPlant(traced.url, { id: 1, name: 'Fern' }, { traceparent: caller.traceparent })).status).toBe(
    200,
  );
  expect(await traced.stop()).toBe(0);
  const [server, ...more] = spansFrom(receiver.spans, traced.pid).filter((span) => span.kind === 'server');
  expect(more).toEqual([]);
  expect(server).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, name: 'POST /plants' });
  expect(server!.resource['service.name']).toBe('plants-east');
  expect(requestLines(traced.run.stderr).map((line) => [line.trace_id, line.span_id])).toEqual([
    [caller.traceId, server!.spanId],
  ]);

  const before = receiver.exports.length;
  const untraced = await startServer(['--log'], exporterEnv(receiver, 'http/json'));
  expect(
    (await createPlant(untraced.url, { id: 1, name: 'Fern' }, { traceparent: callerSpan().traceparent })).status,
  ).toBe(200);
  expect(await untraced.stop()).toBe(0);
  expect(receiver.exports.length).toBe(before);
  const [line, ...others] = requestLines(untraced.run.stderr);
  expect(others).toEqual([]);
  expect(line).toMatchObject({ status: 200 });
  expect(line).not.toHaveProperty('trace_id');
  expect(line).not.toHaveProperty('span_id');
});

/** A collector on 127.0.0.1 that answers every export with `status`; `close` frees its port. */
async function collectorAnswering(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end('refused\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

it('says on stderr that the spans were not exported at exit when nothing listens at the endpoint, and exits 0', async () => {
  const gone = await collectorAnswering(200);
  await gone.close();
  const server = await startServer(['--otel'], {
    ...exporterEnv({ url: gone.url }, 'http/protobuf', 600_000),
    // The exporter's retries of a refused connection stop within this.
    OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
  });
  expect((await createPlant(server.url, { id: 1, name: 'Fern' })).status).toBe(200);
  expect(await server.stop()).toBe(0);
  // The last attempt's failure: refused, or timed out when a loaded machine held the attempt back.
  const port = new URL(gone.url).port;
  expect(server.run.stderr).toMatch(
    new RegExp(
      `^plant-store-server: --otel: spans not exported at exit: Error: (connect ECONNREFUSED 127\\.0\\.0\\.1:${port}|Request timed out)\n$`,
    ),
  );
});

it('says it on the JSON log with --log when the collector answers the export with 400', async () => {
  const collector = await collectorAnswering(400);
  try {
    const server = await startServer(OTEL, exporterEnv(collector, 'http/json', 600_000));
    expect((await createPlant(server.url, { id: 1, name: 'Fern' })).status).toBe(200);
    expect(await server.stop()).toBe(0);
    const lines = server.run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.event === 'spans-lost')).toEqual([
      {
        level: 'error',
        time: expect.any(String),
        event: 'spans-lost',
        error: 'OTLPExporterError: Bad Request',
        message: 'spans not exported at exit',
      },
    ]);
    // After the server's own last line.
    expect(lines.at(-1)?.event).toBe('spans-lost');
    expect(lines.at(-2)?.event).toBe('stop');
  } finally {
    await collector.close();
  }
});
