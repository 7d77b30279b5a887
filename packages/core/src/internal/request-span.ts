// The span of one request, by the stable HTTP semantic conventions, and the span of its wait for the
// store. Only reached when an OpenTelemetry SDK is registered (see otel.ts).
import type { Attributes, Span, TextMapGetter } from '@opentelemetry/api';
import type { PlantStoreRequest, PlantStoreResponse } from '../app-types.js';
import type { InsertResult } from '../store.js';
import { isValid, type Otel, SPAN_KIND, STATUS_ERROR, spanIn, withSpan, withoutSpan } from './otel.js';

/** The methods the conventions name; any other is `_OTHER`. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** W3C trace context (`traceparent`, `tracestate`) and any other propagated header, read from the request. */
const HEADERS: TextMapGetter<PlantStoreRequest> = {
  get: (request, key) => request.header(key) ?? undefined,
  keys: () => ['traceparent', 'tracestate', 'baggage'],
};

/**
 * Answers `request` with `answer` inside its span. Where the app's HTTP instrumentation already made
 * one (a span is active), that span gets the route and its name; otherwise a SERVER span starts,
 * continuing the trace of the request's `traceparent` or a new one. A 4xx leaves the status unset; a
 * 5xx sets ERROR with `error.type`.
 */
export async function traceRequest(
  otel: Otel,
  request: PlantStoreRequest,
  route: string,
  answer: (request: PlantStoreRequest) => Promise<PlantStoreResponse>,
): Promise<PlantStoreResponse> {
  const active = otel.contexts.active();
  const onRoute = request.path === route;
  const method = KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';
  const name = `${method === '_OTHER' ? 'HTTP' : method}${onRoute ? ` ${route}` : ''}`;
  const current = spanIn(active);
  // A span the app's instrumentation made but did not sample records nothing: its decision is
  // followed (no span of the core's own), and the log still gets its trace's ids.
  if (current !== undefined && isValid(current.spanContext())) {
    if (onRoute) {
      current.setAttribute('http.route', route);
      current.updateName(name);
    }
    const response = await answer(request);
    if (response.errorCode !== undefined) current.setAttribute('plant_store.error_code', response.errorCode);
    return withIds(response, current);
  }
  const parent = otel.propagation?.extract(withoutSpan(active), request, HEADERS) ?? withoutSpan(active);
  const span = otel.tracer.startSpan(
    name,
    { kind: SPAN_KIND.server, attributes: requestAttributes(request, method, onRoute ? route : undefined) },
    parent,
  );
  const response = await otel.contexts.with(withSpan(parent, span), answer, undefined, request);
  span.setAttribute('http.response.status_code', response.status);
  if (response.errorCode !== undefined) span.setAttribute('plant_store.error_code', response.errorCode);
  if (response.status >= 500) {
    span.setAttribute('error.type', String(response.status));
    span.setStatus({ code: STATUS_ERROR });
  }
  span.end();
  return withIds(response, span);
}

/** The request's attributes known before it is answered. */
function requestAttributes(request: PlantStoreRequest, method: string, route: string | undefined): Attributes {
  const attributes: Attributes = { 'http.request.method': method, 'url.path': request.path };
  if (method === '_OTHER') attributes['http.request.method_original'] = request.method;
  if (route !== undefined) attributes['http.route'] = route;
  const host = request.header('host');
  if (host !== null) {
    // `name:port`, `[v6]:port` (the address is the IP without its brackets), or a name alone.
    const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
    if (match !== null) {
      attributes['server.address'] = match[1]!.replace(/^\[(.*)\]$/, '$1');
      if (match[2] !== undefined) attributes['server.port'] = Number(match[2]);
    }
  }
  const agent = request.header('user-agent');
  if (agent !== null) attributes['user_agent.original'] = agent;
  return attributes;
}

/**
 * The answer with the span's ids. Object.assign, not a spread: on Node 20 the spread of these objects
 * takes a slow path, which cost a traced server a tenth of its requests per second (bench/README.md).
 */
function withIds(response: PlantStoreResponse, span: Span): PlantStoreResponse {
  const { traceId, spanId } = span.spanContext();
  const traced: { -readonly [K in keyof PlantStoreResponse]: PlantStoreResponse[K] } = Object.assign({}, response);
  traced.trace = { traceId, spanId };
  return traced;
}

/**
 * Runs the store's insert inside an INTERNAL span, child of the request's: its duration is the
 * request's wait for the store (a group commit's included), and a store's batch span links to it.
 */
export async function traceInsert(
  otel: Otel,
  insert: () => InsertResult | Promise<InsertResult>,
): Promise<InsertResult> {
  const active = otel.contexts.active();
  const span = otel.tracer.startSpan('plant_store.insert', { kind: SPAN_KIND.internal }, active);
  try {
    const result = await otel.contexts.with(withSpan(active, span), insert);
    span.setAttribute('plant_store.insert.outcome', result.created ? 'created' : 'existing');
    return result;
  } catch (error) {
    span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
    span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
