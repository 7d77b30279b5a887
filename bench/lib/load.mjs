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
// measured on the same 200 path as the others rather than on accidental collisions. They keep one
// number of digits, so every request has the same length and its id can be rewritten in place.
const ID_DIGITS = String(idBase).length;
const bodyWith = (id) => `{"id":${id},"name":"Monstera deliciosa","tag":"indoor"}`;
const requests =
  workload === 'unique'
    ? [{ method: 'POST', path, headers, body: bodyWith(idBase) }]
    : [
        { method: 'POST', path, headers, body: '{"id":4242,"name":"Monstera deliciosa","tag":"indoor"}' },
        { method: 'POST', path, headers, body: '{"id":4242,"name":"Monstera deliciosa","tag":"outdoor"}' },
      ];

/**
 * Unique ids without autocannon building every request anew. Its `setupRequest` path rebuilds the
 * whole request per send (object copies, a deep clone, three Buffers), which made the load generator
 * as busy as the servers (both at ~95% of a core), so req/s measured autocannon as much as the
 * server: measured at 16 connections, the loader went from 0.95 to ~0.67 of a core, the servers to
 * ~0.98. Instead each connection keeps the one request buffer autocannon built for it, and the id's
 * digits are rewritten in it before every send: autocannon's client emits `request` right before it
 * writes the buffer, and with pipelining 1 the previous request has been answered, so the buffer is
 * free. test/bench/load-generator.test.ts checks that every id sent is new.
 */
function setupClient(client) {
  client.setRequests([{ method: 'POST', path, headers, body: bodyWith(idBase) }]);
  const buffer = client.requestIterator?.currentRequest?.requestBuffer;
  const at = Buffer.isBuffer(buffer) ? buffer.indexOf(`"id":${idBase},`) + 5 : -1;
  if (at < 5) throw new Error('autocannon changed: no request buffer with the id to rewrite (bench/lib/load.mjs)');
  client.on('request', () => {
    let id = nextId++;
    if (String(id).length !== ID_DIGITS) throw new Error(`id ${id} does not have ${ID_DIGITS} digits`);
    for (let i = at + ID_DIGITS - 1; i >= at; i--) {
      buffer[i] = 48 + (id % 10);
      id = Math.floor(id / 10);
    }
  });
}

function run(seconds, latencies) {
  const instance = autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    requests,
    timeout: 10,
    ...(workload === 'unique' ? { setupClient } : {}),
  });
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
