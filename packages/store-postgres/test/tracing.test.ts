// The PostgreSQL store's batch spans, through a real OpenTelemetry SDK, the core's app and the pg
// instrumentation an app registers: the creates of one group commit share one CLIENT span
// `INSERT <schema>.<table>` by the database conventions, the child of the first request's insert span
// and linked to each, and the instrumentation records nothing of the batch's own; a failing batch
// carries its SQLSTATE; a failover, the fallback to unnamed statements and a statement the network lost
// are events on the batch they touch; with no SDK registered there is no span.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createPlantStoreApp, type PlantStore, traceLink } from '@plant-store/core';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/postgres.js';
import { startTcpProxy } from '../../../test/support/tcp-proxy.mjs';
import type { createPostgresStore as CreatePostgresStore, PostgresStore, PostgresStoreOptions } from '../src/index.js';
import { registerTracing, type TestTracing } from '../../../test/support/tracing-sdk.js';

const TOKEN = 'tracing-test-token';

let tracing: TestTracing;
let instrumentation: PgInstrumentation;
let db: TestDatabase;
let createPostgresStore: typeof CreatePostgresStore;
let Pg: typeof pg;

beforeAll(async () => {
  tracing = registerTracing();
  // Enabled before pg is first loaded, as an app enables it: it patches pg as pg is required. Hence the
  // store, pg and the test database (whose module loads pg) are imported only now.
  instrumentation = new PgInstrumentation();
  ({ createPostgresStore } = await import('../src/index.js'));
  Pg = (await import('pg')).default;
  db = await (await import('../../../test/support/postgres.js')).openTestDatabase();
});

const closing: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const each of closing.splice(0).reverse()) await each.close();
});
afterAll(async () => {
  instrumentation?.disable();
  tracing?.disable();
  await db?.close();
});

/** A store on a new table of the test's schema, opened before the spans the test looks at. */
async function openStore(options: PostgresStoreOptions = {}): Promise<PostgresStore & { name: string }> {
  const name = db.table();
  const store = await createPostgresStore({
    ...(options.pool === undefined && { connectionString: db.url }),
    schema: db.schema,
    ...options,
    table: name,
  });
  closing.push(store);
  tracing.reset();
  return Object.assign(store, { name });
}

/** The app's answers to creates of `names` (ids from `firstId` on), all sent at once. */
function createAll(store: PlantStore, names: readonly string[], firstId = 1): Promise<number[]> {
  const app = createPlantStoreApp({ store, tokens: [TOKEN] });
  return Promise.all(
    names.map(async (name, i) => {
      const response = await app.fetch(
        new Request('http://localhost/plants', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: firstId + i, name }),
        }),
      );
      return response.status;
    }),
  );
}

const spansWhere = (test: (span: ReadableSpan) => boolean) => tracing.spans().filter(test);
const batchSpans = () => spansWhere((span) => span.name.startsWith('INSERT '));
const insertSpans = () => spansWhere((span) => span.name === 'plant_store.insert');
/** What the pg instrumentation recorded: `pg.query:…`, `pg.connect`, `pg-pool.connect`. */
const pgSpans = () => spansWhere((span) => span.name.startsWith('pg'));
/**
 * What it recorded of the store's work: anything in a request's trace (where the store's statements
 * would go, under whichever span was active), and the insert statement wherever it went. The test's
 * own queries run outside any span, each in a trace of its own.
 */
function storePgSpans(): ReadableSpan[] {
  const requests = new Set(
    spansWhere((span) => span.kind === SpanKind.SERVER).map((span) => span.spanContext().traceId),
  );
  return pgSpans().filter(
    (span) =>
      requests.has(span.spanContext().traceId) || String(span.attributes['db.query.text']).startsWith('INSERT INTO'),
  );
}
const linkedIds = (span: ReadableSpan | undefined) => (span?.links ?? []).map((link) => link.context.spanId).sort();
const spanIds = (spans: readonly ReadableSpan[]) => spans.map((span) => span.spanContext().spanId).sort();
const server = () => new URL(db.url);

it('gives concurrent creates one CLIENT span by the database conventions, child of the first insert span and linked to each; the pg instrumentation records nothing of it', async () => {
  const store = await openStore();
  const names = ['Fern', 'Oak', 'Ivy', 'Moss', 'Elm', 'Yew'];
  expect(await createAll(store, names)).toEqual(names.map(() => 200));
  expect(store.stats()).toMatchObject({ statements: 1, rows: 6 });

  const batches = batchSpans();
  expect(batches).toHaveLength(1);
  const batch = batches[0]!;
  expect(batch.name).toBe(`INSERT ${db.schema}.${store.name}`);
  expect(batch.kind).toBe(SpanKind.CLIENT);
  expect(batch.attributes).toEqual({
    'db.system.name': 'postgresql',
    'db.operation.name': 'INSERT',
    'db.collection.name': `${db.schema}.${store.name}`,
    'db.operation.batch.size': 6,
    'server.address': server().hostname,
    'server.port': Number(server().port),
    'db.namespace': server().pathname.slice(1),
  });
  expect(batch.status.code).toBe(SpanStatusCode.UNSET);
  expect(batch.events).toEqual([]);
  const inserts = insertSpans();
  expect(inserts).toHaveLength(6);
  expect(linkedIds(batch)).toEqual(spanIds(inserts));
  const first = batch.links[0]!.context;
  expect(batch.parentSpanContext?.spanId).toBe(first.spanId);
  expect(batch.spanContext().traceId).toBe(first.traceId);

  expect(storePgSpans()).toEqual([]);
  // The instrumentation is live: a query of the test's own is recorded.
  await db.query('SELECT 1 AS probe');
  expect(pgSpans().map((span) => span.attributes['db.query.text'])).toContain('SELECT 1 AS probe');
});

it('leaves db.operation.batch.size out for one row, a single operation by the conventions', async () => {
  const store = await openStore();
  expect(await createAll(store, ['Fern'])).toEqual([200]);
  const [batch] = batchSpans();
  expect(batch?.attributes).not.toHaveProperty('db.operation.batch.size');
  expect(batch?.attributes).toMatchObject({ 'db.collection.name': `${db.schema}.${store.name}` });
  expect(linkedIds(batch)).toEqual(spanIds(insertSpans()));
});

it('marks a batch the database fails with ERROR, error.type and the SQLSTATE (a check constraint added under the store)', async () => {
  const store = await openStore();
  await db.query(`ALTER TABLE ${store.table} ADD CONSTRAINT no_weeds CHECK (name <> 'weed')`);
  // One statement carries the three rows, so the one the constraint refuses fails all of them.
  expect(await createAll(store, ['Fern', 'weed', 'Oak'])).toEqual([500, 500, 500]);

  const [batch] = batchSpans();
  expect(batch?.status.code).toBe(SpanStatusCode.ERROR);
  expect(batch?.status.message).toMatch(/failed an insert into .* with SQLSTATE 23514/);
  expect(batch?.attributes).toMatchObject({
    'db.response.status_code': '23514',
    'error.type': 'PostgresStoreError',
    'db.operation.batch.size': 3,
  });
  expect(linkedIds(batch)).toEqual(spanIds(insertSpans()));
  expect(storePgSpans()).toEqual([]);
});

it('records the fallback to unnamed statements as an event, with the SQLSTATE that caused it', async () => {
  // A pool of one connection of the test's own: the test can reach the session the store's statements are named in.
  const pool = new Pg.Pool({ connectionString: db.url, max: 1 });
  pool.on('error', () => undefined);
  closing.push({ close: () => pool.end() });
  const store = await openStore({ pool });
  expect(await createAll(store, ['Fern'])).toEqual([200]);
  const client = await pool.connect();
  // The session forgets the store's named statement, which the driver still takes for parsed: its Bind
  // meets 26000, as when a pooler hands the session another server connection.
  await client.query('DEALLOCATE ALL');
  client.release();
  tracing.reset();

  expect(await createAll(store, ['Oak'], 2)).toEqual([200]);
  const [batch] = batchSpans();
  expect(batch?.events.map((event) => [event.name, event.attributes])).toEqual([
    ['plant_store.pooler_fallback', { 'db.response.status_code': '26000' }],
  ]);
  expect(batch?.status.code).toBe(SpanStatusCode.UNSET);
});

it('records a failover as an event on the next batch, after a batch whose connection the server ended fails with its SQLSTATE', async () => {
  const applicationName = `tracing_failover_${process.pid}`;
  const url = server();
  url.searchParams.set('target_session_attrs', 'read-write');
  url.searchParams.set('application_name', applicationName);
  const store = await openStore({ connectionString: url.href });
  expect(await createAll(store, ['before'])).toEqual([200]);

  const holder = new Pg.Client({ connectionString: db.url });
  await holder.connect();
  closing.push({ close: () => holder.end() });
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${store.table} IN ACCESS EXCLUSIVE MODE`);
  tracing.reset();
  const blocked = createAll(store, ['blocked'], 2);
  // The store's statement waits for the lock; then the server ends its connection (57P01).
  const waiting = `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`;
  const deadline = Date.now() + 5_000;
  while ((await db.query(waiting, [applicationName])).length === 0) {
    if (Date.now() > deadline) throw new Error('the store never waited for the lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
    applicationName,
  ]);
  expect(await blocked).toEqual([503]);
  await holder.query('ROLLBACK');
  expect(await createAll(store, ['after'], 3)).toEqual([200]);

  const [failed, next] = batchSpans();
  expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
  expect(failed?.attributes).toMatchObject({
    'db.response.status_code': '57P01',
    'error.type': 'StoreUnavailableError',
  });
  expect(failed?.events).toEqual([]);
  const target = `${url.hostname}:${url.port}`;
  expect(next?.events.map((event) => [event.name, event.attributes])).toEqual([
    ['plant_store.failover', { 'plant_store.failover.from': target, 'plant_store.failover.to': target }],
  ]);
  expect(next?.status.code).toBe(SpanStatusCode.UNSET);
  expect(next?.attributes).toMatchObject({ 'server.address': url.hostname, 'server.port': Number(url.port) });
  expect(storePgSpans()).toEqual([]);
});

it('records a statement the network lost as an event on its batch, whose server is the one connected to (a proxy here)', async () => {
  const proxy = await startTcpProxy({ target: { host: server().hostname, port: Number(server().port) } });
  closing.push(proxy);
  const url = server();
  url.port = String(proxy.port);
  const store = await openStore({ connectionString: url.href, statementTimeout: 60_000 });
  expect(await createAll(store, ['before'])).toEqual([200]);
  tracing.reset();

  // A moment's cut, as when a NAT forgets the connection: the insert's bytes are lost.
  proxy.blackhole(true);
  const lost = createAll(store, ['lost'], 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  proxy.blackhole(false);
  expect(await lost).toEqual([503]);

  const [batch] = batchSpans();
  expect(batch?.events.map((event) => event.name)).toEqual(['plant_store.lost_statement']);
  expect(batch?.status.code).toBe(SpanStatusCode.ERROR);
  expect(batch?.attributes).toMatchObject({
    'error.type': 'StoreUnavailableError',
    'server.address': url.hostname,
    'server.port': proxy.port,
  });
  expect(batch?.attributes).not.toHaveProperty('db.response.status_code');
  // The question to the database about the lost statement is the store's too.
  expect(storePgSpans()).toEqual([]);
});

// Last: it unregisters the SDK and the instrumentation for good.
it('with no SDK registered, traceLink() is undefined and a batch has no span', async () => {
  const inSpan = () =>
    trace.getTracer('test').startActiveSpan('outer', (span) => {
      const link = traceLink();
      span.end();
      return link;
    });
  const store = await openStore();
  expect(inSpan()).toBeDefined();
  expect(await createAll(store, ['traced'])).toEqual([200]);
  expect(batchSpans()).toHaveLength(1);

  instrumentation.disable();
  tracing.disable();
  tracing.reset();
  expect(inSpan()).toBeUndefined();
  expect(await createAll(store, ['untraced', 'untraced too'], 2)).toEqual([200, 200]);
  // The provider still runs: a span the store or the core made on a tracer kept from before would be here.
  expect(tracing.spans()).toEqual([]);
});
