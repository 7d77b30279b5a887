// Part "tracing": the server with OpenTelemetry tracing on, head to head (parts/head-to-head.mjs)
// with itself bare and with fastify traced the way its own instrumentation documents. The real
// `plant-store-server` in memory: bare; `--otel` (the Node SDK from the standard `OTEL_*` variables:
// every request sampled, the batch span processor, OTLP/HTTP). The peer: the fastify baseline with
// the same SDK, the same variables and @fastify/otel's instrumentation. Every traced server exports
// to one local OTLP sink (lib/otlp-sink.mjs) in a process of its own on the load core, as a
// collector runs on another machine. Unique creates at the run's connections; req/s, p99, CPU per
// request, and the spans and bytes exported per request.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKLOADS } from '../lib/contenders.mjs';
import { startOtlpSink } from '../lib/otlp-sink.mjs';
import { startLoader } from '../lib/proc.mjs';
import { errorText, fmt, notMeasured } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { pairReport, pairTargets, runPairBlocks } from './head-to-head.mjs';

export const name = 'tracing';
const TITLE = '### Tracing: OpenTelemetry on';
const BENCH = fileURLToPath(new URL('..', import.meta.url));
const UNIQUE = WORKLOADS.find((workload) => workload.id === 'unique');
/** The SDK's default protocol, for every traced contender alike. */
const PROTOCOL = 'http/protobuf';

const CONTENDERS = [
  { id: 'bare', label: 'ours bare', kind: 'cli', args: [] },
  { id: 'otel', label: 'ours `--otel`', kind: 'cli', args: ['--otel'], traced: true },
  {
    id: 'fastify',
    label: 'fastify 5 + @fastify/otel',
    kind: 'fastify',
    options: { otel: true },
    traced: true,
  },
];
const PAIRS = [
  { a: 'otel', b: 'bare' },
  { a: 'otel', b: 'fastify', limit: 1.3 },
];
const byId = new Map(CONTENDERS.map((c) => [c.id, c]));

/**
 * The variables of a traced server, the same for every traced contender: the OTLP exporter on the
 * sink under the server's own key, the protocol, every request sampled, and the batch span
 * processor's defaults (no `OTEL_BSP_*`).
 */
const tracingEnv = (endpoint) => ({
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: PROTOCOL,
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: 'always_on',
  OTEL_SERVICE_NAME: 'plant-store-bench',
});

let started = 0;
function starter(ctx, sink) {
  const { options } = ctx;
  return async (contender) => {
    // A key per process: a fresh pair each block, each counted from its own start.
    const key = `${contender.id}-${++started}`;
    const nodeArgs = [];
    if (options.profile) {
      const dir = join(BENCH, 'profiles', `tracing-${contender.id}`);
      mkdirSync(dir, { recursive: true });
      nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
    }
    const running = await startServer(
      contender.kind,
      { tokens: [options.token], args: contender.args, ...contender.options },
      { core: options.serverCore, nodeArgs, ...(contender.traced && { env: tracingEnv(sink.endpoint(key)) }) },
    );
    if (!contender.traced) return running;
    const counts = () => {
      const { spans, bytes, exports } = sink.totals(key);
      return { spans, exportBytes: bytes, exports };
    };
    return { ...running, key, counts };
  };
}

export async function run(ctx) {
  const { options } = ctx;
  const pending = new Map();
  const rounds = new Map();
  const sink = await startOtlpSink({ core: options.loadCore });
  let totals = {};
  const loader = startLoader({ core: options.loadCore });
  try {
    const start = starter(ctx, sink);
    for (const pair of PAIRS) {
      const key = `${pair.a}~${pair.b}`;
      rounds.set(
        key,
        await runPairBlocks(loader, ctx, {
          key: `tracing ${key}`,
          workload: UNIQUE,
          pair: [byId.get(pair.a), byId.get(pair.b)],
          start,
          onFail: (error) => pending.set(key, errorText(error)),
        }),
      );
    }
  } finally {
    await loader.stop();
    totals = await sink.stop();
  }
  return { rounds, pending, totals };
}

/** The sink's totals over the part, per contender (every process of it, warm-ups and exit flushes included). */
function sinkTotals(totals) {
  const sum = new Map();
  for (const [key, counts] of Object.entries(totals)) {
    const id = key.replace(/-\d+$/, '');
    const into = sum.get(id) ?? { exports: 0, bytes: 0, spans: 0, failed: 0 };
    for (const field of Object.keys(into)) into[field] += counts[field] ?? 0;
    sum.set(id, into);
  }
  return sum;
}

export function report(outcome, { plan }) {
  if (!outcome.value) return notMeasured(TITLE, outcome, pairTargets('tracing', PAIRS, byId));
  const { totals } = outcome.value;
  const spans = (n) => (Number.isFinite(n) ? n.toFixed(2) : '—');
  const { rows, notes, targets } = pairReport('tracing', PAIRS, byId, outcome.value, [
    { field: 'spansPerRequest', format: spans },
    { field: 'exportBytesPerRequest', format: fmt.int },
  ]);
  for (const [id, sum] of sinkTotals(totals)) {
    notes.push(
      `- ${byId.get(id)?.label ?? id}: ${fmt.int(sum.exports)} exports to the sink, ${fmt.int(sum.spans)} spans in ${fmt.mib(sum.bytes / 2 ** 20)} MiB (${fmt.int(sum.spans / sum.exports)} spans and ${fmt.int(sum.bytes / sum.exports)} bytes an export)${sum.failed ? `; **${fmt.int(sum.failed)} exports the sink could not read**` : ''}.`,
    );
  }
  return {
    targets,
    lines: [
      TITLE,
      '',
      `The real \`plant-store-server\` in memory and the fastify baseline, head to head: ${plan.headBlocks} block(s) of a fresh pair on one core at the same time, each a ${plan.warmup} s warm-up and ${plan.headRounds} rounds of ${plan.headDuration} s, the start order swapped every round; unique creates, ${plan.connections} connections to each. Traced servers: the Node SDK from \`OTEL_*\` (every request sampled with \`always_on\`, the batch span processor's defaults, OTLP ${PROTOCOL}) exporting to one local sink on the load core that answers 200 and counts. Spans and bytes per request are what reached the sink in the measured window, over the requests answered in it (the batch processor sends up to 512 spans at a time, so a window's edges move them by a few percent).`,
      '',
      '| a vs b | req/s a / b (median round) | a / b req/s | per-round range | p99 ms a / b (ratio) | server CPU µs/req a / b (ratio) | spans exported per request a / b | export bytes per request a / b | target | met |',
      '|---|--:|--:|--:|--:|--:|--:|--:|---|---|',
      ...rows,
      '',
      '#### Details',
      '',
      ...notes,
      '',
    ],
  };
}
