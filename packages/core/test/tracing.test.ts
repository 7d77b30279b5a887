// Tracing in the core, in this process: an OpenTelemetry SDK (a BasicTracerProvider that hands each
// ended span to an InMemorySpanExporter, a context manager on AsyncLocalStorage, the W3C trace-context
// propagator) registered through @opentelemetry/api as an application registers one, and unregistered
// after each test. Per request: a SERVER span by the HTTP semantic conventions (or the app's own
// active span, renamed), an INTERNAL `plant_store.insert` span around the store's insert, the ids on
// `response.trace`; and the span API a store's batches use (startStoreSpan, traceLink).
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { core } from '@opentelemetry/sdk-node';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryStore,
  ErrorCode,
  type PlantStore,
  type PlantStoreResponse,
  StoreUnavailableError,
  startStoreSpan,
  type TraceLink,
  traceLink,
} from '../src/index.js';
import { AUTH_JSON, createRequest, makeApp, plainRequest } from './helpers.js';

/**
 * What the SDK's AsyncLocalStorageContextManager does, for what the core needs of it: the active
 * context follows async calls. (That class is in @opentelemetry/context-async-hooks, which the repo
 * does not depend on directly.)
 */
class AsyncLocalStorageContexts implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(active, () => fn.call(thisArg, ...args));
  }
  bind<T>(active: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(active, fn, undefined, ...args)) as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('tracing-test');

function register(): void {
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  expect(context.setGlobalContextManager(new AsyncLocalStorageContexts())).toBe(true);
  expect(propagation.setGlobalPropagator(new core.W3CTraceContextPropagator())).toBe(true);
}

function unregister(): void {
  trace.disable();
  context.disable();
  propagation.disable();
  exporter.reset();
}

/** The spans ended so far with `name`. */
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const ids = (span: Pick<ReadableSpan, 'spanContext'>) => ({
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
});
const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

/** A create through `app.handle`, with a Host and a User-Agent a server would see. */
function create(
  app: { handle(request: ReturnType<typeof plainRequest>['request']): Promise<PlantStoreResponse> },
  body: string,
  init: { method?: string; path?: string; headers?: Record<string, string> } = {},
) {
  const { request } = plainRequest({
    body,
    ...init,
    headers: { ...AUTH_JSON, host: 'plants.test:8080', 'user-agent': 'tracing-test/1.0', ...init.headers },
  });
  return app.handle(request);
}

/** The one SERVER span ended so far (the test fails when there is none or more). */
function serverSpan(): ReadableSpan {
  const servers = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
  expect(servers.map((span) => span.name)).toHaveLength(1);
  return servers[0]!;
}

describe('with an SDK registered', () => {
  beforeEach(register);
  afterEach(unregister);

  it('starts a SERVER span `POST /plants` in a new trace, with the request attributes and an INTERNAL insert span under it', async () => {
    const app = makeApp();
    const response = await create(app, '{"id":1,"name":"Fern"}');
    expect(response.status).toBe(200);
    const server = serverSpan();
    expect(server.name).toBe('POST /plants');
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes).toEqual({
      'http.request.method': 'POST',
      'url.path': '/plants',
      'http.route': '/plants',
      'server.address': 'plants.test',
      'server.port': 8080,
      'user_agent.original': 'tracing-test/1.0',
      'http.response.status_code': 200,
    });
    expect(server.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(server.instrumentationScope.name).toBe('@plant-store/core');
    expect(ids(server).traceId).toMatch(HEX_TRACE);
    expect(ids(server).spanId).toMatch(HEX_SPAN);
    // The log line's ids are the request span's.
    expect(response.trace).toEqual(ids(server));

    const [insert, ...more] = named('plant_store.insert');
    expect(more).toEqual([]);
    expect(insert!.kind).toBe(SpanKind.INTERNAL);
    expect(insert!.spanContext().traceId).toBe(ids(server).traceId);
    expect(insert!.parentSpanContext?.spanId).toBe(ids(server).spanId);
    expect(insert!.attributes).toEqual({ 'plant_store.insert.outcome': 'created' });
    expect(insert!.status).toEqual({ code: SpanStatusCode.UNSET });
    // The insert happened within the request. Each span's clock is anchored to the wall clock on its
    // own, so two spans' times can disagree by a little: 5 ms of slack.
    const nanos = ([seconds, ns]: readonly [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(ns);
    const slack = 5_000_000n;
    expect(nanos(insert!.startTime) + slack).toBeGreaterThanOrEqual(nanos(server.startTime));
    expect(nanos(insert!.endTime)).toBeLessThanOrEqual(nanos(server.endTime) + slack);
  });

  it('records a replay as an existing insert, and each request in a trace of its own', async () => {
    const app = makeApp();
    const first = await create(app, '{"id":1,"name":"Fern"}');
    const replay = await create(app, '{"id":1,"name":"Fern"}');
    expect([first.status, replay.status]).toEqual([200, 200]);
    expect(named('plant_store.insert').map((span) => span.attributes['plant_store.insert.outcome'])).toEqual([
      'created',
      'existing',
    ]);
    expect(first.trace!.traceId).not.toBe(replay.trace!.traceId);
    expect(named('POST /plants').map(ids)).toEqual([first.trace, replay.trace]);
  });

  it('continues the trace of a traceparent: the SERVER span is the child of the caller span, tracestate kept', async () => {
    const app = makeApp();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const response = await create(app, '{"id":2,"name":"Ivy"}', {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01`, tracestate: 'vendor=opaque' },
    });
    const server = serverSpan();
    expect(server.name).toBe('POST /plants');
    expect(server.spanContext().traceId).toBe(traceId);
    expect(server.parentSpanContext).toMatchObject({ traceId, spanId: callerSpanId, isRemote: true });
    expect(server.spanContext().traceState?.serialize()).toBe('vendor=opaque');
    expect(response.trace).toEqual({ traceId, spanId: server.spanContext().spanId });
    expect(named('plant_store.insert')[0]!.spanContext().traceId).toBe(traceId);
  });

  it('starts a new trace when the traceparent is malformed', async () => {
    const response = await create(makeApp(), '{"id":3,"name":"Oak"}', {
      headers: { traceparent: '00-not-a-trace-01' },
    });
    const server = serverSpan();
    expect(server.parentSpanContext).toBeUndefined();
    expect(response.trace!.traceId).toMatch(HEX_TRACE);
  });

  it.each([
    ['plants.test', { 'server.address': 'plants.test' }],
    ['127.0.0.1:4010', { 'server.address': '127.0.0.1', 'server.port': 4010 }],
    ['[::1]:4010', { 'server.address': '::1', 'server.port': 4010 }],
    ['[2001:db8::7]', { 'server.address': '2001:db8::7' }],
  ])('reads server.address and server.port from the Host %s', async (host, expected) => {
    await create(makeApp(), '{"id":13,"name":"Fern"}', { headers: { host } });
    const attributes = serverSpan().attributes;
    expect({ 'server.address': attributes['server.address'], 'server.port': attributes['server.port'] }).toEqual({
      'server.port': undefined,
      ...expected,
    });
  });

  it('names the route with the base path, on app.fetch as on app.handle', async () => {
    const app = makeApp({ basePath: '/api' });
    const response = await app.fetch(createRequest('{"id":4,"name":"Moss"}', { path: '/api/plants' }));
    expect(response.status).toBe(200);
    const server = serverSpan();
    expect(server.name).toBe('POST /api/plants');
    // A web Request carries no Host header: no server.address then.
    expect(server.attributes).toEqual({
      'http.request.method': 'POST',
      'url.path': '/api/plants',
      'http.route': '/api/plants',
      'http.response.status_code': 200,
    });
  });

  it('names a request off the route by its method alone, with no http.route: a 404', async () => {
    const app = makeApp({ basePath: '/api' });
    const response = await create(app, '{"id":5,"name":"Fern"}', { path: '/plants' });
    expect(response.status).toBe(404);
    const server = serverSpan();
    expect(server.name).toBe('POST');
    expect(server.attributes).toEqual({
      'http.request.method': 'POST',
      'url.path': '/plants',
      'server.address': 'plants.test',
      'server.port': 8080,
      'user_agent.original': 'tracing-test/1.0',
      'http.response.status_code': 404,
      'plant_store.error_code': ErrorCode.NOT_FOUND,
    });
    // A 4xx is the client's: no error status.
    expect(server.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(named('plant_store.insert')).toEqual([]);
  });

  it('records a method the conventions do not know as _OTHER, with the method sent, in a span named HTTP', async () => {
    const response = await create(makeApp(), '', { method: 'PURGE' });
    expect(response.status).toBe(405);
    const server = serverSpan();
    expect(server.name).toBe('HTTP /plants');
    expect(server.attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PURGE',
      'http.route': '/plants',
      'http.response.status_code': 405,
      'plant_store.error_code': ErrorCode.METHOD_NOT_ALLOWED,
    });
    expect(server.status).toEqual({ code: SpanStatusCode.UNSET });
  });

  it('names a known method other than POST by itself, with no method_original', async () => {
    await create(makeApp(), '', { method: 'GET' });
    const server = serverSpan();
    expect(server.name).toBe('GET /plants');
    expect(server.attributes['http.request.method']).toBe('GET');
    expect(server.attributes).not.toHaveProperty('http.request.method_original');
  });

  it('leaves the status unset on the 4xx of a conflict and of missing credentials, with their error codes', async () => {
    const app = makeApp();
    await create(app, '{"id":6,"name":"Fern"}');
    exporter.reset();
    const conflict = await create(app, '{"id":6,"name":"Not Fern"}');
    const missing = await create(app, '{"id":7,"name":"Fern"}', { headers: { authorization: '' } });
    expect([conflict.status, missing.status]).toEqual([400, 401]);
    const servers = named('POST /plants');
    expect(servers.map((span) => span.attributes['http.response.status_code'])).toEqual([400, 401]);
    expect(servers.map((span) => span.attributes['plant_store.error_code'])).toEqual([
      ErrorCode.ID_CONFLICT,
      ErrorCode.MISSING_CREDENTIALS,
    ]);
    expect(servers.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
    expect(servers.flatMap((span) => Object.keys(span.attributes)).filter((key) => key === 'error.type')).toEqual([]);
    // The conflict reached the store (an existing plant), the refused request did not.
    expect(named('plant_store.insert').map((span) => span.attributes['plant_store.insert.outcome'])).toEqual([
      'existing',
    ]);
  });

  it('marks a 500 (a store whose insert throws) ERROR with error.type 500, and the insert span ERROR with the error', async () => {
    const store: PlantStore = {
      insert: async () => {
        throw new TypeError('the disk is on fire');
      },
      checkHealth: async () => {},
    };
    const response = await create(makeApp({ store }), '{"id":8,"name":"Fern"}');
    expect(response.status).toBe(500);
    const server = serverSpan();
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 500,
      'error.type': '500',
      'plant_store.error_code': ErrorCode.INTERNAL_ERROR,
    });
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR });
    const [insert] = named('plant_store.insert');
    expect(insert!.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(insert!.attributes).toEqual({ 'error.type': 'TypeError' });
    expect(insert!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the disk is on fire' });
  });

  it('marks a 503 (StoreUnavailableError) ERROR with error.type 503', async () => {
    const store: PlantStore = {
      insert: async () => {
        throw new StoreUnavailableError('the database is away', { retryAfter: 2 });
      },
      checkHealth: async () => {},
    };
    const response = await create(makeApp({ store }), '{"id":9,"name":"Fern"}');
    expect([response.status, response.headers['retry-after']]).toEqual([503, '2']);
    const server = serverSpan();
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 503,
      'error.type': '503',
      'plant_store.error_code': ErrorCode.STORE_UNAVAILABLE,
    });
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(named('plant_store.insert')[0]!.attributes).toEqual({ 'error.type': 'StoreUnavailableError' });
    expect(named('plant_store.insert')[0]!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'the database is away',
    });
  });

  describe('with a span active (an app HTTP instrumentation)', () => {
    /** Runs `fn` with a new SERVER span `incoming` active, ends the span, and returns it with fn's result. */
    async function underIncoming<T>(fn: () => Promise<T>): Promise<[T, ReadableSpan]> {
      const incoming = tracer.startSpan('incoming', { kind: SpanKind.SERVER, attributes: { 'app.own': 'kept' } });
      const result = await context.with(trace.setSpan(context.active(), incoming), fn);
      incoming.end();
      return [result, incoming as unknown as ReadableSpan];
    }

    it('renames that span and gives it http.route, starts no SERVER span of its own, and hangs the insert under it', async () => {
      const app = makeApp({ basePath: '/api' });
      const [response, incoming] = await underIncoming(() =>
        create(app, '{"id":10,"name":"Fern"}', { path: '/api/plants' }),
      );
      expect(response.status).toBe(200);
      expect(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER)).toEqual([incoming]);
      expect(incoming.name).toBe('POST /api/plants');
      // Only the route: the instrumentation records the rest of the request itself.
      expect(incoming.attributes).toEqual({ 'app.own': 'kept', 'http.route': '/api/plants' });
      expect(response.trace).toEqual(ids(incoming));
      expect(named('plant_store.insert')[0]!.parentSpanContext?.spanId).toBe(ids(incoming).spanId);
    });

    it('does the same through app.fetch', async () => {
      const app = makeApp();
      const [response, incoming] = await underIncoming(() =>
        app.fetch(createRequest('{"id":11,"name":"Fern"}', { headers: { 'user-agent': 'x' } })),
      );
      expect(response.status).toBe(200);
      expect(exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER)).toEqual([incoming]);
      expect(incoming.name).toBe('POST /plants');
      expect(incoming.attributes).toEqual({ 'app.own': 'kept', 'http.route': '/plants' });
    });

    it('leaves the name and route alone off the route, and adds the error code of the answer', async () => {
      const [response, incoming] = await underIncoming(() => create(makeApp(), '{}', { path: '/elsewhere' }));
      expect(response.status).toBe(404);
      expect(incoming.name).toBe('incoming');
      expect(incoming.attributes).toEqual({ 'app.own': 'kept', 'plant_store.error_code': ErrorCode.NOT_FOUND });
      expect(response.trace).toEqual(ids(incoming));
    });

    it('follows an active span that is not sampled: no span of its own, and its ids for the log', async () => {
      const unsampled = trace.wrapSpanContext({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: 0,
      });
      const response = await context.with(trace.setSpan(context.active(), unsampled), () =>
        create(makeApp(), '{"id":12,"name":"Fern"}'),
      );
      expect(response.status).toBe(200);
      await provider.forceFlush();
      // Neither a SERVER span nor an insert span: the children of an unsampled span are not sampled.
      expect(exporter.getFinishedSpans()).toEqual([]);
      expect(response.trace).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' });
    });
  });

  describe("a store's batch span (startStoreSpan, traceLink)", () => {
    /**
     * A store that writes the inserts of one turn of the event loop together, as the file and
     * PostgreSQL stores do: each insert keeps its trace link, the batch span links to all of them.
     */
    function batchingStore(write: (span: NonNullable<ReturnType<typeof startStoreSpan>>) => void): PlantStore {
      const memory = createMemoryStore();
      let pending: { plant: Parameters<PlantStore['insert']>[0]; link: TraceLink | undefined; done: () => void }[] = [];
      const flush = () => {
        const batch = pending;
        pending = [];
        const span = startStoreSpan({
          name: 'WRITE plants',
          kind: 'internal',
          attributes: { 'plant_store.batch.size': batch.length },
          links: batch.map((each) => each.link),
        });
        expect(span).toBeDefined();
        span!.run(() => write(span!));
        span!.end();
        for (const each of batch) each.done();
      };
      return {
        async insert(plant) {
          if (pending.length === 0) setTimeout(flush, 0);
          await new Promise<void>((done) => pending.push({ plant, link: traceLink(), done }));
          return memory.insert(plant);
        },
        checkHealth: async () => {},
      };
    }

    it('is the child of the first request insert span, links to each, runs with itself active and tracing suppressed', async () => {
      let inside: { active: string | undefined; suppressed: boolean } | undefined;
      const store = batchingStore((span) => {
        inside = {
          active: trace.getActiveSpan()?.spanContext().spanId,
          suppressed: core.isTracingSuppressed(context.active()),
        };
        span.event('written', { rows: 2 });
        span.setAttributes({ 'db.response.returned_rows': 2 });
      });
      const app = makeApp({ store });
      const [a, b] = await Promise.all([create(app, '{"id":20,"name":"Fern"}'), create(app, '{"id":21,"name":"Ivy"}')]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const inserts = named('plant_store.insert');
      const [batch, ...more] = named('WRITE plants');
      expect(more).toEqual([]);
      expect(batch!.kind).toBe(SpanKind.INTERNAL);
      expect(inside).toEqual({ active: batch!.spanContext().spanId, suppressed: true });
      // Child of the first request's insert span, in its trace; a link to each request's insert span.
      const first = inserts.find((span) => span.spanContext().traceId === a.trace!.traceId)!;
      expect(batch!.parentSpanContext?.spanId).toBe(first.spanContext().spanId);
      expect(batch!.spanContext().traceId).toBe(a.trace!.traceId);
      expect(batch!.links.map((link) => ids({ spanContext: () => link.context }))).toEqual(
        [a, b].map((response) => ids(inserts.find((span) => span.spanContext().traceId === response.trace!.traceId)!)),
      );
      expect(batch!.attributes).toEqual({ 'plant_store.batch.size': 2, 'db.response.returned_rows': 2 });
      expect(batch!.events.map((event) => [event.name, event.attributes])).toEqual([['written', { rows: 2 }]]);
      expect(batch!.status).toEqual({ code: SpanStatusCode.UNSET });
    });

    it('fail() marks it ERROR with error.type, the message and further attributes', () => {
      const span = startStoreSpan({ name: 'WRITE plants', kind: 'client', attributes: {}, links: [undefined] });
      span!.fail(new RangeError('out of disk'), { 'db.response.status_code': '53100' });
      span!.end();
      const [batch] = named('WRITE plants');
      expect(batch!.kind).toBe(SpanKind.CLIENT);
      // No request to link to or hang under: a root span with no links.
      expect(batch!.parentSpanContext).toBeUndefined();
      expect(batch!.links).toEqual([]);
      expect(batch!.attributes).toEqual({ 'error.type': 'RangeError', 'db.response.status_code': '53100' });
      expect(batch!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'out of disk' });
    });
  });
});

describe('with no SDK registered', () => {
  it('answers with no trace ids and records nothing, and a store gets no link and no span', async () => {
    // Registered and unregistered again: what the core read while it was registered is not kept.
    register();
    try {
      await create(makeApp(), '{"id":1,"name":"Fern"}');
      expect(named('POST /plants')).toHaveLength(1);
    } finally {
      unregister();
    }
    const app = makeApp();
    const response = await create(app, '{"id":30,"name":"Fern"}');
    expect(response.status).toBe(200);
    expect(response).not.toHaveProperty('trace');
    const failed = await create(
      makeApp({ store: { insert: () => Promise.reject(new Error('x')), checkHealth: async () => {} } }),
      '{"id":31,"name":"Fern"}',
    );
    expect(failed.status).toBe(500);
    expect(failed).not.toHaveProperty('trace');
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(traceLink()).toBeUndefined();
    expect(startStoreSpan({ name: 'WRITE plants', kind: 'internal', attributes: {}, links: [] })).toBeUndefined();
  });

  it('needs a context manager too: a tracer provider alone is not enough', async () => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const response = await create(makeApp(), '{"id":32,"name":"Fern"}');
      expect(response).not.toHaveProperty('trace');
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      unregister();
    }
  });
});
