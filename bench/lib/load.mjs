// Child-process entry that drives servers with autocannon (in its own process, pinned to the core
// the servers do not use). Two ways to run it:
//   node load.mjs '<json config>'   one warm-up and one measured run, then `RESULT {…}`, then exit;
//   node load.mjs --session         one config per line on stdin, each answered by `PHASE measure`
//                                   and `RESULT {…}` on stdout, until stdin ends. The bench times
//                                   short bursts against servers that stay up (parts/head-to-head.mjs),
//                                   and starting a node process and autocannon per burst would cost
//                                   as long as the burst.
//
// Workloads:
// - unique: every request creates a new plant (the 200 path); ids come from one counter shared by
//   all connections, warm-up included, and (in a session) by every burst, so no id is sent twice.
// - fixed: one id, alternating the same body (replay, 200) and a different tag (conflict, 40003).
import autocannon from 'autocannon';
import { createInterface } from 'node:readline';

const bodyWith = (id) => `{"id":${id},"name":"Monstera deliciosa","tag":"indoor"}`;
const FIXED = [
  '{"id":4242,"name":"Monstera deliciosa","tag":"indoor"}',
  '{"id":4242,"name":"Monstera deliciosa","tag":"outdoor"}',
];

// The next unique id, for the process's whole life (see above); set by the first config's idBase.
let nextId;

/**
 * Unique ids without autocannon building every request anew. Its `setupRequest` path rebuilds the
 * whole request per send (object copies, a deep clone, three Buffers), which makes the load
 * generator as busy as the servers, so that req/s measures autocannon as much as the server.
 * Instead each connection keeps the one request buffer autocannon built for it, and the id's
 * digits are rewritten in it before every send: autocannon's client emits `request` right before it
 * writes the buffer, and with pipelining 1 the previous request has been answered, so the buffer is
 * free. test/bench/load-generator.test.ts checks that every id sent is new.
 */
function uniqueIds(path, headers, idBase) {
  // Ids stay below 2^53 so that the fastify baseline, which cannot keep larger ids exactly, is
  // measured on the same 200 path as the others rather than on accidental collisions. They keep one
  // number of digits, so every request has the same length and its id can be rewritten in place.
  const digits = String(idBase).length;
  return function setupClient(client) {
    client.setRequests([{ method: 'POST', path, headers, body: bodyWith(idBase) }]);
    const buffer = client.requestIterator?.currentRequest?.requestBuffer;
    const at = Buffer.isBuffer(buffer) ? buffer.indexOf(`"id":${idBase},`) + 5 : -1;
    if (at < 5) throw new Error('autocannon changed: no request buffer with the id to rewrite (bench/lib/load.mjs)');
    client.on('request', () => {
      let id = nextId++;
      if (String(id).length !== digits) throw new Error(`id ${id} does not have ${digits} digits`);
      for (let i = at + digits - 1; i >= at; i--) {
        buffer[i] = 48 + (id % 10);
        id = Math.floor(id / 10);
      }
    });
  };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The result of one measured autocannon run, with exact latencies (see `run`). */
function summary(result, latencies, cpuSeconds) {
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, Number(count)]),
  );
  return {
    rps: result.requests.total / result.duration,
    total: result.requests.total,
    seconds: result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: result.errors,
    timeouts: result.timeouts,
    loaderCpu: cpuSeconds / result.duration,
    statusCodes,
  };
}

/**
 * One warm-up (unless 0) and one measured run; prints PHASE and RESULT. With `urls` instead of
 * `url`, every server gets its own `connections` at the same time (a head-to-head run: see
 * parts/head-to-head.mjs; `tokens`, one per url, where they differ) and RESULT holds `{ results: [...] }` in the order of `urls`.
 */
async function measure(config) {
  const { token, workload, connections = 16, duration = 6, warmup = 2, idBase = 1_000_000_000 } = config;
  const urls = config.urls ?? [config.url];
  nextId ??= idBase;
  const targets = urls.map((url, i) => {
    // `tokens[i]`, where given, is the token of `urls[i]` (a server of a head-to-head pair that
    // checks JWTs takes one the other does not).
    const headers = { authorization: `Bearer ${config.tokens?.[i] ?? token}`, 'content-type': 'application/json' };
    const path = new URL('plants', url.endsWith('/') ? url : `${url}/`).pathname;
    const requests =
      workload === 'unique'
        ? [{ method: 'POST', path, headers, body: bodyWith(idBase) }]
        : FIXED.map((body) => ({ method: 'POST', path, headers, body }));
    const setupClient = workload === 'unique' ? uniqueIds(path, headers, idBase) : undefined;
    return { url, requests, setupClient };
  });
  const run = ({ url, requests, setupClient }, seconds, latencies) => {
    const instance = autocannon({
      url,
      connections,
      pipelining: 1,
      duration: seconds,
      requests,
      timeout: 10,
      ...(setupClient ? { setupClient } : {}),
    });
    if (latencies) {
      // autocannon's own histogram keeps whole milliseconds; at ~1 ms per request that is too coarse
      // to compare p99s, so the exact times are kept here.
      instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
    }
    return instance;
  };

  if (warmup > 0) await Promise.all(targets.map((target) => run(target, warmup)));
  // The parent samples the servers' CPU time at this line and at RESULT, to tell a saturated server
  // from a saturated load generator.
  process.stdout.write('PHASE measure\n');
  const cpuBefore = process.cpuUsage();
  const latencies = targets.map(() => []);
  const results = await Promise.all(targets.map((target, i) => run(target, duration, latencies[i])));
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const summaries = results.map((result, i) => summary(result, latencies[i], cpuSeconds));
  process.stdout.write(`RESULT ${JSON.stringify(config.urls ? { results: summaries } : summaries[0])}\n`);
}

if (process.argv[2] === '--session') {
  // One burst at a time: the next line is read only when this one's RESULT is out.
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== '') await measure(JSON.parse(line));
  }
} else {
  await measure(JSON.parse(process.argv[2]));
}
