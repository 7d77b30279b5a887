// A real OpenTelemetry SDK for the tracing tests, registered through @opentelemetry/api as an app
// registers one: the Node tracer provider, whose register() sets the API's global tracer provider,
// its AsyncLocalStorage context manager and the W3C propagator, with an in-memory exporter of the
// finished spans.
import { context, propagation, trace } from '@opentelemetry/api';
import { node } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TestTracing {
  /** The spans finished so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Forgets the spans finished so far. */
  reset(): void;
  /**
   * Unregisters the SDK from the API, as when none is registered. The provider itself keeps running,
   * so a span made on a tracer kept from before would still show in `spans()`.
   */
  disable(): void;
}

/** Registers a new SDK; call `disable()` after the test file (or the test). */
export function registerTracing(): TestTracing {
  const exporter = new InMemorySpanExporter();
  new node.NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    disable() {
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
