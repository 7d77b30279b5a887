// What `--otel` writes out at the exit, at the seams the CLI is made of: the SDK as startTracing starts
// it (in this process, exporting to an OTLP receiver), and the bounded flush of drainAndExit. The
// CLI's own exit (SIGTERM, the line on stderr) is tested end to end in test/tracing/cli-tracing.test.ts.
import * as sdk from '@opentelemetry/sdk-node';
import { afterEach, expect, it, vi } from 'vitest';
import { exporterEnv, startOtlpReceiver } from '../../../test/support/otlp-receiver.js';
import { flushWithin } from '../src/internal/cli-lifecycle.js';
import { startTracing } from '../src/internal/tracing-sdk.js';

afterEach(() => {
  vi.unstubAllEnvs();
  sdk.api.trace.disable();
  sdk.api.context.disable();
  sdk.api.propagation.disable();
});

it('exports a span ended just before the exit while the resource is still settling (host.id on a loaded machine)', async () => {
  const receiver = await startOtlpReceiver();
  try {
    // The SDK reads its variables from the environment. A batch of one: the span's export starts as
    // it ends, as the batch processor's timer starts it when it fires before the SIGTERM is handled.
    const env = { ...exporterEnv(receiver, 'http/json', 600_000), OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1' };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    // Traces only, as startTracing sets when they are not set; stubbed, so that they are unset after.
    vi.stubEnv('OTEL_METRICS_EXPORTER', 'none');
    vi.stubEnv('OTEL_LOGS_EXPORTER', 'none');
    // A resource attribute that settles 100 ms after the start, as the host detector's host.id does
    // when a loaded machine holds back its dynamic import and file read.
    const late = {
      detect: () => ({ attributes: { 'host.id': new Promise<string>((resolve) => setTimeout(resolve, 100, 'h')) } }),
    };
    class LateResourceSdk extends sdk.NodeSDK {
      constructor(configuration: ConstructorParameters<typeof sdk.NodeSDK>[0] = {}) {
        super({ ...configuration, resourceDetectors: [late] });
      }
    }
    const flush = await startTracing({ ...sdk, NodeSDK: LateResourceSdk });
    // From here to the end of the flush, no timer can fire: only the resource's settling, had it
    // not happened before, could hold the span back from the exporter.
    sdk.api.trace.getTracer('otel-exit-test').startSpan('ended before the exit').end();
    await flush();
    expect(receiver.spans.map((span) => [span.name, span.resource['host.id']])).toEqual([
      ['ended before the exit', 'h'],
    ]);
  } finally {
    await receiver.close();
  }
});

it('says why a flush did not write everything out: its error, or that it outran its limit', async () => {
  expect(await flushWithin(async () => {}, 1_000)).toBeUndefined();
  const refused = Object.assign(new Error('Bad Request'), { name: 'OTLPExporterError' });
  expect(
    await flushWithin(async () => {
      throw refused;
    }, 1_000),
  ).toBe('OTLPExporterError: Bad Request');
  expect(await flushWithin(() => new Promise(() => {}), 50)).toBe('the export did not finish within 0.05 s');
});
