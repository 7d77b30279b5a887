// What a store uses to trace its writes with OpenTelemetry, when an application has registered an
// SDK: one span per batch (a group commit serves many requests at once) with a link to each request
// it serves. With no SDK registered every function here returns `undefined` at once.
import type { Context, Link, Span } from '@opentelemetry/api';
import { isValid, registeredOtel, SPAN_KIND, STATUS_ERROR, spanIn, suppressed, withSpan } from './internal/otel.js';

/** A span's attributes, as OpenTelemetry takes them. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A request waiting on a store's write, as its batch span links to it: the trace context of the insert call. */
export type TraceLink = { readonly [brand]: true };
declare const brand: unique symbol;

/**
 * The trace context active as `insert` is called (the request's), to keep beside the plant until its
 * batch is written; `undefined` when tracing is off.
 */
export function traceLink(): TraceLink | undefined {
  const otel = registeredOtel();
  if (otel === undefined) return undefined;
  const context = otel.contexts.active();
  return spanIn(context) === undefined ? undefined : (context as unknown as TraceLink);
}

/** A batch span as {@link startStoreSpan} makes it. */
export interface StoreSpanOptions {
  /** The span's name (for a database, `{db.operation.name} {db.collection.name}`). */
  readonly name: string;
  /** CLIENT for a call to a database; INTERNAL for a store's own work (a file's write and fsync). */
  readonly kind: 'client' | 'internal';
  readonly attributes: SpanAttributes;
  /** The requests the batch serves: the span is the child of the first, and links to each. */
  readonly links: readonly (TraceLink | undefined)[];
}

/** One batch's span. */
export interface StoreSpan {
  /** An event on the span (a failover, a fallback, a check), with its attributes. */
  event(name: string, attributes?: SpanAttributes): void;
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed: ERROR status, `error.type`, and any further attributes (a SQLSTATE). */
  fail(error: unknown, attributes?: SpanAttributes): void;
  /**
   * Runs `write` with this span active and instrumentations suppressed, so that a driver's own
   * instrumentation (a pg instrumentation in the app) neither counts the batch's statement again nor
   * hangs it under whichever request happened to be active.
   */
  run<T>(write: () => T): T;
  end(): void;
}

/** Starts a batch span, or returns `undefined` when tracing is off. */
export function startStoreSpan(options: StoreSpanOptions): StoreSpan | undefined {
  const otel = registeredOtel();
  if (otel === undefined) return undefined;
  const contexts = options.links.filter((link) => link !== undefined) as unknown as Context[];
  const links: Link[] = [];
  for (const context of contexts) {
    const spanContext = spanIn(context)?.spanContext();
    if (spanContext !== undefined && isValid(spanContext)) links.push({ context: spanContext });
  }
  const parent = contexts[0] ?? otel.contexts.active();
  const span: Span = otel.tracer.startSpan(
    options.name,
    { kind: options.kind === 'client' ? SPAN_KIND.client : SPAN_KIND.internal, attributes: options.attributes, links },
    parent,
  );
  const running = suppressed(withSpan(parent, span));
  return {
    event: (name, attributes) => {
      span.addEvent(name, attributes);
    },
    setAttributes: (attributes) => {
      span.setAttributes(attributes);
    },
    fail(error, attributes) {
      span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
      if (attributes !== undefined) span.setAttributes(attributes);
      span.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
    },
    run: (write) => otel.contexts.with(running, write),
    end: () => span.end(),
  };
}
