// Child-process entry that drives one server with autocannon (in its own process, pinned to the
// core the server does not use) and prints `RESULT {…}`. Usage: node load.mjs '<json config>'.
//
// Workloads:
// - unique: every request creates a new plant (the 200 path); ids come from one counter shared by
//   all connections, warm-up included, so no id is ever sent twice.
// - fixed: one id, alternating the same body (replay, 200) and a different tag (conflict, 40003).
import autocannon from 'autocannon';

const config = JSON.parse(process.argv[2]);
const { url, token, workload, connections = 16, duration = 6, warmup = 2, idBase = 1_000_000_000 } = config;
const path = new URL('plants', url.endsWith('/') ? url : `${url}/`).pathname;
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

let nextId = idBase;
// Ids stay below 2^53 so that the fastify baseline, which cannot keep larger ids exactly, is
// measured on the same 200 path as the others rather than on accidental collisions.
const requests =
  workload === 'unique'
    ? [
        {
          method: 'POST',
          path,
          headers,
          setupRequest(request) {
            request.body = `{"id":${nextId++},"name":"Monstera deliciosa","tag":"indoor"}`;
            return request;
          },
        },
      ]
    : [
        { method: 'POST', path, headers, body: '{"id":4242,"name":"Monstera deliciosa","tag":"indoor"}' },
        { method: 'POST', path, headers, body: '{"id":4242,"name":"Monstera deliciosa","tag":"outdoor"}' },
      ];

function run(seconds, latencies) {
  const instance = autocannon({ url, connections, pipelining: 1, duration: seconds, requests, timeout: 10 });
  if (latencies) {
    // autocannon's own histogram keeps whole milliseconds; at ~1 ms per request that is too coarse
    // to compare p99s, so the exact times are kept here.
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  }
  return instance;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

if (warmup > 0) await run(warmup);
// The parent samples the server's CPU time at this line and at RESULT, to tell a saturated server
// from a saturated load generator.
process.stdout.write('PHASE measure\n');
const cpuBefore = process.cpuUsage();
const latencies = [];
const result = await run(duration, latencies);
const cpu = process.cpuUsage(cpuBefore);
const sorted = Float64Array.from(latencies).sort();
const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]));
process.stdout.write(
  `RESULT ${JSON.stringify({
    rps: result.requests.total / result.duration,
    total: result.requests.total,
    seconds: result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: result.errors,
    timeouts: result.timeouts,
    loaderCpu: (cpu.user + cpu.system) / 1e6 / result.duration,
    statusCodes,
  })}\n`,
);
