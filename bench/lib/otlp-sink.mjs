// A stand-in for an OpenTelemetry collector: accepts OTLP/HTTP trace exports (`POST …/v1/traces`,
// http/protobuf or http/json), answers each 200 with an empty export response, and counts what it
// got: exports, bytes on the wire and spans. It is a process of its own on the load generator's
// core, as a collector runs on another machine: the bench's own process has no core kept for it.
//
// One sink serves many servers: each is given the base endpoint `<url>/<key>` (the exporter appends
// `/v1/traces`), and the sink counts per key.
//
// As a child: `node otlp-sink.mjs` prints `READY {"url":…}`, then after every export the key's
// running totals as `COUNT {"key":…,"exports":…,"bytes":…,"spans":…}`; when its stdin ends it prints
// `RESULT {<key>: totals, …}` and exits.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { spawnNode, waitForLine } from './proc.mjs';

const SELF = fileURLToPath(import.meta.url);
const TRACES = /^(?:\/([^/?]+))?\/v1\/traces(?:\?|$)/;
const EMPTY = { exports: 0, bytes: 0, spans: 0, failed: 0 };

/**
 * Starts the sink in a process of its own on `core`.
 * @param {{ core?: number }} [where]
 * @returns {Promise<{ url: string, endpoint(key: string): string,
 *   totals(key: string): { exports: number, bytes: number, spans: number, failed: number },
 *   stop(): Promise<Record<string, { exports: number, bytes: number, spans: number, failed: number }>> }>}
 */
export async function startOtlpSink({ core } = {}) {
  const proc = spawnNode([SELF], { core, stdin: 'pipe' });
  // The totals as the sink last printed them: read without waiting, as a head-to-head round reads
  // a server's CPU time at the line that starts its measured window.
  const latest = new Map();
  proc.lines.on('line', (line) => {
    if (!line.startsWith('COUNT ')) return;
    const { key, ...counts } = JSON.parse(line.slice(6));
    latest.set(key, counts);
  });
  const { url } = await waitForLine(proc, 'READY', 15_000);
  return {
    url,
    endpoint: (key) => `${url}/${encodeURIComponent(key)}`,
    totals: (key) => ({ ...EMPTY, ...latest.get(key) }),
    async stop() {
      try {
        const result = waitForLine(proc, 'RESULT', 15_000);
        proc.child.stdin.end();
        return await result;
      } finally {
        await proc.exited;
      }
    },
  };
}

// ---------------------------------------------------------------- the child's side

/**
 * The spans in an OTLP protobuf `ExportTraceServiceRequest`, counted by walking its tags without
 * decoding a span: resource_spans (field 1) → scope_spans (field 2) → spans (field 2).
 */
export function countProtobufSpans(bytes) {
  let spans = 0;
  for (const [resourceStart, resourceEnd] of lengthFields(bytes, 0, bytes.length, 1)) {
    for (const [scopeStart, scopeEnd] of lengthFields(bytes, resourceStart, resourceEnd, 2)) {
      for (const _ of lengthFields(bytes, scopeStart, scopeEnd, 2)) spans++;
    }
  }
  return spans;
}

/** The `[start, end)` of every length-delimited field numbered `field` in `bytes[start, end)`. */
function* lengthFields(bytes, start, end, field) {
  let at = start;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= end) throw new Error('truncated protobuf');
      const byte = bytes[at++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < end) {
    const tag = varint();
    const wireType = tag % 8;
    const number = Math.floor(tag / 8);
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (at + length > end) throw new Error('truncated protobuf');
      if (number === field) yield [at, at + length];
      at += length;
    } else throw new Error(`protobuf wire type ${wireType} is not one OTLP uses`);
  }
  if (at !== end) throw new Error('truncated protobuf');
}

/** The spans in an OTLP JSON export. */
export function countJsonSpans(text) {
  let spans = 0;
  for (const resource of JSON.parse(text).resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
  }
  return spans;
}

function serve() {
  const counts = new Map();
  const server = createServer((req, res) => {
    const match = req.method === 'POST' ? TRACES.exec(req.url ?? '') : null;
    if (match === null) {
      res.writeHead(404).end();
      return;
    }
    const key = decodeURIComponent(match[1] ?? '');
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = /^application\/json\b/i.test(req.headers['content-type'] ?? '');
      const total = counts.get(key) ?? { ...EMPTY };
      counts.set(key, total);
      total.exports++;
      total.bytes += body.length;
      try {
        const plain = /gzip/i.test(req.headers['content-encoding'] ?? '') ? gunzipSync(body) : body;
        total.spans += json ? countJsonSpans(plain.toString('utf8')) : countProtobufSpans(plain);
      } catch {
        // Still answered 200: the server under test is not to retry what the sink could not read.
        total.failed++;
      }
      process.stdout.write(`COUNT ${JSON.stringify({ key, ...total })}\n`);
      // An empty ExportTraceServiceResponse: all accepted.
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', async () => {
    const { port } = server.address();
    process.stdout.write(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
    for await (const _ of createInterface({ input: process.stdin }));
    server.close();
    server.closeAllConnections();
    process.stdout.write(`RESULT ${JSON.stringify(Object.fromEntries(counts))}\n`);
  });
}

if (process.argv[1] === SELF) serve();
