// `plant-store-server --otel --database` end to end, in one process and with `--workers 2`: the built
// CLI as child processes on a schema of the run's PostgreSQL, exporting to an OTLP receiver in this
// process. Creates sent at once share group commits: each commit is a CLIENT span `INSERT
// <schema>.<table>` by the database conventions, the child of the first request it serves and linked
// to every request's `plant_store.insert` span, so that each request's trace reaches a batch by parent
// or by link. A database that refuses the write (a read-only session) is a 503: ERROR on the request
// span (error.type 503), on its insert span and on the batch span (with the SQLSTATE).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exporterEnv, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import {
  callerSpan,
  createPlant,
  requestLines,
  requestSpans,
  spansFrom,
  startServer,
  type TracedServer,
} from '../tracing/traced-cli.js';

let db: TestDatabase;
let receiver: OtlpReceiver;
beforeAll(async () => {
  [db, receiver] = await Promise.all([openTestDatabase(), startOtlpReceiver()]);
}, 180_000);
afterAll(async () => {
  await receiver?.close();
  await db?.close();
});

const databaseFlags = (url: string, table: string) => [
  '--database',
  url,
  '--database-schema',
  db.schema,
  '--database-table',
  table,
];

/** `count` creates at once, each on a connection of its own, every other one with a caller's traceparent. */
async function createAtOnce(server: TracedServer, count: number, firstId: number) {
  const callers = Array.from({ length: count }, () => callerSpan());
  const answers = await Promise.all(
    callers.map((caller, i) =>
      createPlant(
        server.url,
        { id: firstId + i, name: `Plant ${i}` },
        i % 2 === 0 ? { traceparent: caller.traceparent } : {},
      ),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  return callers.filter((_, i) => i % 2 === 0);
}

/** The batch spans among `spans`: `INSERT <schema>.<table>`. */
const batchesOf = (spans: readonly ReceivedSpan[], table: string) =>
  spans.filter((span) => span.name === `INSERT ${db.schema}.${table}`);

/**
 * Checks each batch span by the database conventions, and that every request's insert span is the
 * parent of a batch or linked from one (every request's trace reaches its commit).
 */
function expectBatchesServeEveryRequest(spans: readonly ReceivedSpan[], table: string, port: number) {
  const requests = requestSpans(spans);
  const inserts = requests.map((each) => each.insert!);
  const batches = batchesOf(spans, table);
  expect(batches.length).toBeGreaterThan(0);
  const key = (span: { traceId: string; spanId: string }) => `${span.traceId}/${span.spanId}`;
  for (const batch of batches) {
    expect(batch.kind).toBe('client');
    expect(batch.status.code).toBe('unset');
    expect(batch.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.operation.name': 'INSERT',
      'db.collection.name': `${db.schema}.${table}`,
      'server.address': '127.0.0.1',
      'server.port': port,
      'db.namespace': new URL(db.url).pathname.slice(1),
    });
    const rows = batch.links.length;
    // The conventions set the batch size only on a batch of more than one operation.
    if (rows > 1) expect(batch.attributes['db.operation.batch.size']).toBe(rows);
    else expect(batch.attributes).not.toHaveProperty('db.operation.batch.size');
    // The child of the first request it serves, in that request's trace.
    expect([batch.traceId, batch.parentSpanId]).toEqual([batch.links[0]!.traceId, batch.links[0]!.spanId]);
    for (const link of batch.links) expect(inserts.map(key)).toContain(key(link));
  }
  const reached = new Set(
    batches.flatMap((batch) => [`${batch.traceId}/${batch.parentSpanId}`, ...batch.links.map(key)]),
  );
  expect(inserts.filter((insert) => !reached.has(key(insert))).map(key)).toEqual([]);
  // Each request's insert span is linked once: no write is counted twice.
  expect(batches.flatMap((batch) => batch.links).length).toBe(inserts.length);
  for (const { server, insert } of requests) {
    expect(server).toMatchObject({ name: 'POST /plants', status: { code: 'unset' } });
    expect(insert).toMatchObject({ traceId: server.traceId, attributes: { 'plant_store.insert.outcome': 'created' } });
  }
}

it('traces one process over http/protobuf: creates at once share INSERT batch spans, linked to every request', async () => {
  const table = db.table();
  const server = await startServer(['--otel', ...databaseFlags(db.url, table)], exporterEnv(receiver, 'http/protobuf'));
  const continued = await createAtOnce(server, 8, 1);
  const spans = await receiver.waitFor(
    (all) => {
      const mine = spansFrom(all, server.pid);
      return (
        requestSpans(mine).filter((each) => each.insert).length >= 8 &&
        batchesOf(mine, table).flatMap((batch) => batch.links).length >= 8
      );
    },
    15_000,
    'eight requests and their batch spans',
  );
  const mine = spansFrom(spans, server.pid);
  expectBatchesServeEveryRequest(mine, table, Number(new URL(db.url).port));
  for (const caller of continued) {
    expect(requestSpans(mine).some((each) => each.server.parentSpanId === caller.spanId)).toBe(true);
  }
  expect(await server.stop()).toBe(0);
  expect((await db.query(`SELECT count(*)::int AS n FROM "${db.schema}"."${table}"`))[0]).toEqual({ n: 8 });
});

it('traces every worker of --workers 2, and the primary drains them with their spans exported before it exits', async () => {
  const table = db.table();
  // Ten minutes between the batch processor's exports: only each worker's shutdown sends anything.
  const server = await startServer(
    ['--otel', '--log', '--workers', '2', ...databaseFlags(db.url, table)],
    exporterEnv(receiver, 'http/json', 600_000),
  );
  const before = receiver.spans.length;
  // Connections are handed to the workers in turn: both serve some.
  await createAtOnce(server, 8, 1);
  await createAtOnce(server, 8, 101);
  expect(receiver.spans.length).toBe(before);
  expect(await server.stop()).toBe(0);

  const spans = receiver.spans.slice(before);
  const workers = [...new Set(spans.map((span) => span.resource['process.pid'] as number))];
  expect(workers).toHaveLength(2);
  expect(workers).not.toContain(server.pid);
  expect(requestSpans(spans)).toHaveLength(16);
  for (const worker of workers) {
    const own = spansFrom(spans, worker);
    expect(requestSpans(own).length).toBeGreaterThan(0);
    // A worker's batches serve its own requests.
    expectBatchesServeEveryRequest(own, table, Number(new URL(db.url).port));
  }
  // The log lines of both workers carry the ids of their request spans.
  const lines = requestLines(server.run.stderr);
  expect(lines).toHaveLength(16);
  const servers = new Set(requestSpans(spans).map(({ server: span }) => `${span.traceId}/${span.spanId}`));
  expect(lines.filter((line) => !servers.has(`${line.trace_id}/${line.span_id}`))).toEqual([]);
});

it('marks a 503 ERROR: the request span with error.type 503, its insert span, and the batch span with the SQLSTATE', async () => {
  const table = db.table();
  await db.query(`CREATE TABLE "${db.schema}"."${table}" (id bigint PRIMARY KEY, name text NOT NULL, tag text)`);
  // Every transaction of the server's sessions read-only: the insert is refused with 25006.
  const readOnly = new URL(db.url);
  readOnly.searchParams.set('options', '-c default_transaction_read_only=on');
  const server = await startServer(
    ['--otel', ...databaseFlags(readOnly.href, table)],
    exporterEnv(receiver, 'http/json'),
  );
  const caller = callerSpan();
  const answer = await createPlant(server.url, { id: 1, name: 'Fern' }, { traceparent: caller.traceparent });
  expect(answer.status).toBe(503);
  expect(JSON.parse(answer.body).error).toBe(50301);
  expect(await server.stop()).toBe(0);

  const mine = spansFrom(receiver.spans, server.pid);
  const [request, ...more] = requestSpans(mine);
  expect(more).toEqual([]);
  expect(request!.server).toMatchObject({
    traceId: caller.traceId,
    parentSpanId: caller.spanId,
    // The request's own ERROR carries no message: error.type says what failed.
    status: { code: 'error', message: '' },
  } satisfies Partial<ReceivedSpan>);
  expect(request!.server.attributes).toMatchObject({
    'http.response.status_code': 503,
    'error.type': '503',
    'plant_store.error_code': 50301,
  });
  expect(request!.insert).toMatchObject({
    status: { code: 'error' },
    attributes: { 'error.type': 'StoreUnavailableError' },
  });
  const batches = batchesOf(mine, table);
  expect(batches.length).toBeGreaterThan(0);
  for (const batch of batches) {
    expect(batch.links).toEqual([{ traceId: caller.traceId, spanId: request!.insert!.spanId, attributes: {} }]);
    expect(batch.parentSpanId).toBe(request!.insert!.spanId);
  }
  // The batch that answered the request failed with the database's refusal.
  const failed = batches.filter((batch) => batch.status.code === 'error');
  expect(failed).toHaveLength(1);
  expect(failed[0]!.attributes).toMatchObject({
    'error.type': 'StoreUnavailableError',
    'db.response.status_code': '25006',
  });
});
