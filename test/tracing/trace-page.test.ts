// The trace docs/observability.md shows: one create, with a caller's traceparent, through
// `plant-store-server --otel --data`, as an OTLP receiver gets it, written as a tree (ids, times and
// the port left out: they change from run to run). The page shows examples/observability/one-create.trace.txt;
// this test fails when that file is no longer what the server sends. PLANT_STORE_WRITE_TRACE=1 writes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { exporterEnv, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { callerSpan, createPlant, startServer } from './traced-cli.js';

const FILE = join(import.meta.dirname, '../../examples/observability/one-create.trace.txt');
const work = mkdtempSync(join(tmpdir(), 'plant-store-trace-page-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Attributes whose values differ from run to run, shown by name only. */
const VARYING = new Set(['server.port']);

/** The spans as a tree under the caller's span: name, kind, status, attributes, links by name. */
function tree(spans: readonly ReceivedSpan[], callerSpanId: string): string {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const lines = [`the caller's span (its traceparent sent with the create; not exported here)`];
  const walk = (parent: string, depth: number) => {
    for (const span of spans.filter((s) => s.parentSpanId === parent)) {
      const pad = '   '.repeat(depth);
      lines.push(`${pad}└─ ${span.name}  (${span.kind.toUpperCase()}, status ${span.status.code})`);
      for (const key of Object.keys(span.attributes).sort()) {
        const value = VARYING.has(key) ? '…' : JSON.stringify(span.attributes[key]);
        lines.push(`${pad}     ${key} = ${value}`);
      }
      for (const link of span.links) {
        const target = byId.get(link.spanId);
        lines.push(
          `${pad}     link → ${target === undefined ? 'a span of another trace' : `${target.name} of this trace`}`,
        );
      }
      walk(span.spanId, depth + 1);
    }
  };
  walk(callerSpanId, 0);
  return `${lines.join('\n')}\n`;
}

it('is the trace of one create through --otel --data, as docs/observability.md shows it', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const server = await startServer(['--otel', '--data', join(work, 'plants.log')], {
      ...exporterEnv(receiver, 'http/json'),
      OTEL_SERVICE_NAME: 'plant-store',
    });
    const caller = callerSpan();
    const answer = await createPlant(
      server.url,
      { id: 1, name: 'Monstera', tag: 'indoor' },
      {
        traceparent: caller.traceparent,
        'user-agent': 'docs-example/1.0',
      },
    );
    expect(answer.status).toBe(200);
    const spans = await receiver.waitFor((all) => all.length >= 3, 15_000, 'the three spans of one create');
    expect(await server.stop()).toBe(0);
    expect(spans.every((span) => span.traceId === caller.traceId)).toBe(true);
    expect(spans.every((span) => span.resource['service.name'] === 'plant-store')).toBe(true);
    const text = tree(spans, caller.spanId);
    if (process.env.PLANT_STORE_WRITE_TRACE === '1') writeFileSync(FILE, text);
    expect(text, 'PLANT_STORE_WRITE_TRACE=1 writes the new trace for the page').toBe(readFileSync(FILE, 'utf8'));
  } finally {
    await receiver.close();
  }
});
