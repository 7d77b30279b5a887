// The OpenTelemetry API as an application's SDK registered it. @opentelemetry/api keeps what is
// registered (the tracer provider, the context manager, the propagator) on `globalThis` under one
// symbol per major version, so that every copy of the API in a process shares it; the core reads it
// there and so needs no package of its own, in every runtime. With no SDK registered there is
// nothing under the symbol, and a request pays one property read.
import type {
  Context,
  ContextManager,
  Span,
  SpanContext,
  TextMapPropagator,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';

const API = Symbol.for('opentelemetry.js.api.1');
/** The context key under which the API keeps the active span. */
const SPAN = Symbol.for('OpenTelemetry Context Key SPAN');
/** The context key instrumentations check before they record (the SDK's `suppressTracing`). */
const SUPPRESS = Symbol.for('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** SpanKind and SpanStatusCode of the API (numbers in every version 1). */
export const SPAN_KIND = { internal: 0, server: 1, client: 2 } as const;
export const STATUS_ERROR = 2;

interface Registered {
  readonly version?: string;
  readonly trace?: TracerProvider;
  readonly context?: ContextManager;
  readonly propagation?: TextMapPropagator;
}

/** The registered API's parts the core uses. */
export interface Otel {
  readonly tracer: Tracer;
  readonly contexts: ContextManager;
  readonly propagation: TextMapPropagator | undefined;
}

let cached: { readonly from: TracerProvider; readonly otel: Otel } | undefined;

/** The registered tracing, or `undefined` when no SDK has registered a tracer provider. */
export function registeredOtel(): Otel | undefined {
  const registered = (globalThis as { [API]?: Registered })[API];
  const provider = registered?.trace;
  if (provider === undefined || registered?.context === undefined) return undefined;
  if (cached?.from !== provider) {
    // Only the API's major version 1 keeps this shape.
    if (registered.version !== undefined && !registered.version.startsWith('1.')) return undefined;
    cached = {
      from: provider,
      otel: {
        tracer: provider.getTracer('@plant-store/core'),
        contexts: registered.context,
        propagation: registered.propagation,
      },
    };
  }
  return cached.otel;
}

/** The span active in `context`, if any. */
export function spanIn(context: Context): Span | undefined {
  return context.getValue(SPAN) as Span | undefined;
}

/** `context` with `span` active. */
export function withSpan(context: Context, span: Span): Context {
  return context.setValue(SPAN, span);
}

/** `context` with no active span: what a new trace (or one continued from a `traceparent`) starts from. */
export function withoutSpan(context: Context): Context {
  return context.deleteValue(SPAN);
}

/** `context` in which instrumentations record nothing (a driver's own spans under a store's span). */
export function suppressed(context: Context): Context {
  return context.setValue(SUPPRESS, true);
}

/** Whether a span context is one a link or a parent can name (not the API's invalid all-zero one). */
export function isValid(spanContext: SpanContext): boolean {
  return /[^0]/.test(spanContext.traceId) && /[^0]/.test(spanContext.spanId);
}
