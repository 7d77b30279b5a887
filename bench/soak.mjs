// Soak test of the reference server (`npm run soak`, or `node bench/soak.mjs --seconds 60`).
//
// Starts the real CLI (packages/server/dist/cli.js) in a child process on 127.0.0.1, with the
// durable file store by default, and sends it mixed valid and hostile traffic from this process
// for a bounded time, at a bounded rate and concurrency. Every few seconds it samples the child's
// resident memory and open file descriptors from /proc. At the end it prints a table and fails
// (exit 1) when memory grew during the steady state, descriptors did not return to their baseline
// once the load stopped, a valid request got a wrong answer, or the server did not shut down
// cleanly on SIGTERM. Linux only (it reads /proc). Not part of `npm test`: it takes minutes.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    rate: { type: 'string', default: '400' },
    concurrency: { type: 'string', default: '8' },
    sample: { type: 'string', default: '3' },
    store: { type: 'string', default: 'file' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'node bench/soak.mjs [--seconds 180] [--rate 400 req/s] [--concurrency 8] [--sample 3 s] [--store file|memory]\n',
  );
  process.exit(0);
}
const SECONDS = positive('seconds');
const RATE = positive('rate');
const CONCURRENCY = positive('concurrency');
const SAMPLE_MS = positive('sample') * 1000;
if (args.store !== 'file' && args.store !== 'memory') fail('--store is file or memory');
if (!readdirSafe('/proc/self/fd')) fail('the soak test reads /proc and runs on Linux only');

// Memory may grow by this factor plus this slack between the first and last third of the steady
// state (after warm-up) before it counts as a leak; descriptors must come back within FD_SLACK.
const RSS_FACTOR = 1.25;
const RSS_SLACK_MB = 8;
const FD_SLACK = 2;
const WARMUP_FRACTION = 0.2;
// Ids cycle through a bounded space so that the store stops growing after warm-up: what is left
// to grow is what leaks.
const ID_SPACE = 2_000;

function positive(name) {
  const n = Number(args[name]);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number`);
  return n;
}
function fail(message) {
  process.stderr.write(`soak: ${message}\n`);
  process.exit(2);
}
function readdirSafe(path) {
  try {
    return readdirSync(path);
  } catch {
    return undefined;
  }
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the server ----------------------------------------------------------------------------------

const token = randomBytes(18).toString('base64url');
const cli = new URL('../packages/server/dist/cli.js', import.meta.url);
const dataDir = args.store === 'file' ? mkdtempSync(join(tmpdir(), 'plant-soak-')) : undefined;
const childArgs = [cli.pathname, '--port', '0', '--host', '127.0.0.1', '--token', token];
if (dataDir) childArgs.push('--data', join(dataDir, 'plants.log'));
const child = spawn(process.execPath, childArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
let childStderr = '';
child.stderr.on('data', (d) => {
  childStderr = (childStderr + d).slice(-4000);
});
let childExit;
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve((childExit = { code, signal }))));

const port = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error(`server did not start: ${out}${childStderr}`)), 15_000);
  child.stdout.on('data', (d) => {
    out += d;
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
    if (m) {
      clearTimeout(timer);
      resolve(Number(m[1]));
    }
  });
  child.on('exit', () => reject(new Error(`server exited at start: ${childStderr}`)));
}).catch((error) => {
  child.kill('SIGKILL');
  fail(error.message);
});

/** What each open descriptor of the server points at (socket:[…], a file, anon_inode:[eventpoll]). */
function fdTargets() {
  const dir = `/proc/${child.pid}/fd`;
  return (readdirSafe(dir) ?? []).map((fd) => {
    try {
      return readlinkSync(`${dir}/${fd}`);
    } catch {
      return '?';
    }
  });
}

function probe() {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  const fds = readdirSafe(`/proc/${child.pid}/fd`)?.length ?? NaN;
  return { rssMb: rssKb / 1024, fds };
}

// ---- the traffic -----------------------------------------------------------------------------

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const counts = new Map();
const unexpected = [];
const count = (kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
const expectThat = (ok, what) => {
  if (!ok && unexpected.length < 20) unexpected.push(what);
  if (!ok) count('unexpected');
};

/** One request over the keep-alive agent; resolves { status, body } or { error }. */
function post(body, headers = {}) {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/plants',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
        res.on('error', (error) => resolve({ error: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end(body);
  });
}

/** Raw bytes on a new socket; resolves the first line of the answer ('' when none) once closed. */
const openSockets = new Set();
function raw(bytes, { holdMs = 3_000, destroyAfterWrite = false } = {}) {
  return new Promise((resolve) => {
    let got = '';
    const socket = connect({ port, host: '127.0.0.1' });
    openSockets.add(socket);
    const done = () => {
      clearTimeout(timer);
      openSockets.delete(socket);
      socket.destroy();
      resolve(got.split('\r\n')[0] ?? '');
    };
    const timer = setTimeout(done, holdMs);
    socket.on('data', (d) => (got += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(bytes, () => {
        if (destroyAfterWrite) done();
      });
    });
  });
}

const MAX_SLOW = 16;
let slow = 0;
const nameOf = (id) => `plant-${id}`;
const head = (lines) => `${lines.join('\r\n')}\r\n\r\n`;
const base = ['POST /plants HTTP/1.1', 'Host: 127.0.0.1', `Authorization: Bearer ${token}`, 'Content-Type: application/json'];

/** The traffic mix: [weight, name, action]. Each action checks its own answer. */
const mix = [
  [50, 'create', async () => {
    const id = 1 + Math.floor(Math.random() * ID_SPACE);
    const r = await post(`{"id":${id},"name":"${nameOf(id)}","tag":"soak","extra":{"ignored":[1,2,3]}}`);
    expectThat(r.status === 200 && r.body === `{"name":"${nameOf(id)}","tag":"soak"}`, `create ${id}: ${JSON.stringify(r)}`);
  }],
  [5, 'conflict', async () => {
    // Ids of their own, two names each: whichever name came first wins, the other conflicts.
    const id = ID_SPACE + 1 + Math.floor(Math.random() * 100);
    const r = await post(`{"id":${id},"name":"${Math.random() < 0.5 ? 'one' : 'two'}"}`);
    expectThat(r.status === 200 || (r.status === 400 && r.body.includes('40003')), `conflict ${id}: ${JSON.stringify(r)}`);
  }],
  [6, 'invalid', async () => {
    const bodies = ['', '{', '[]', '{"id":1.5,"name":"x"}', '{"id":9223372036854775808,"name":"x"}', '{"id":1,"name":null}', '\xff\xfe'];
    const r = await post(bodies[Math.floor(Math.random() * bodies.length)]);
    expectThat(r.status === 400, `invalid: ${JSON.stringify(r)}`);
  }],
  [4, 'unauthorized', async () => {
    const r = await post('{"id":1,"name":"x"}', { authorization: Math.random() < 0.5 ? 'Bearer wrong' : 'Basic eDp5' });
    expectThat(r.status === 401, `unauthorized: ${JSON.stringify(r)}`);
  }],
  [4, 'media-type', async () => {
    const r = await post('{"id":1,"name":"x"}', { 'content-type': 'text/plain' });
    expectThat(r.status === 415, `media type: ${JSON.stringify(r)}`);
  }],
  [3, 'deep', async () => {
    const r = await post(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    expectThat(r.status === 400, `deep: ${JSON.stringify(r).slice(0, 200)}`);
  }],
  [3, 'too-large', async () => {
    const line = await raw(head([...base, 'Content-Length: 50000000']) + '{"id":');
    expectThat(line.startsWith('HTTP/1.1 413'), `declared too large: ${line}`);
  }],
  [6, 'bad-framing', async () => {
    const cases = [
      'GARBAGE\r\n\r\n',
      head([...base, 'Content-Length: 5', 'Transfer-Encoding: chunked']) + '0\r\n\r\n',
      head([...base, 'Content-Length: 2', 'Content-Length: 3']) + '{}',
      head([...base, 'Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n0\r\n\r\n',
      head([...base, 'X-Bad: a\u0000b', 'Content-Length: 2']) + '{}',
      head([...base, `X-Big: ${'a'.repeat(20_000)}`, 'Content-Length: 2']) + '{}',
    ];
    const line = await raw(cases[Math.floor(Math.random() * cases.length)]);
    expectThat(/^HTTP\/1\.1 4\d\d/.test(line), `bad framing: ${JSON.stringify(line)}`);
  }],
  [3, 'aborted-body', async () => {
    await raw(head([...base, 'Content-Length: 100']) + '{"id":1,"na', { destroyAfterWrite: true });
  }],
  [2, 'slow-headers', async () => {
    // Holds a socket with half a request for 1-3 s, well inside the server's header timeout, in
    // the background (at most MAX_SLOW at once) so the worker goes on sending.
    if (slow >= MAX_SLOW) return;
    slow++;
    void raw('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:', { holdMs: 1_000 + Math.random() * 2_000 }).finally(() => slow--);
  }],
];
const totalWeight = mix.reduce((s, [w]) => s + w, 0);
function pick() {
  let r = Math.random() * totalWeight;
  for (const entry of mix) {
    r -= entry[0];
    if (r < 0) return entry;
  }
  return mix[0];
}

// ---- the run -----------------------------------------------------------------------------------

const samples = [];
const started = Date.now();
const deadline = started + SECONDS * 1000;
let done = 0;
let lastDone = 0;
const baseline = probe();
const baselineTargets = fdTargets();
const sampler = setInterval(() => {
  const t = (Date.now() - started) / 1000;
  const s = { t, ...probe(), rps: (done - lastDone) / (SAMPLE_MS / 1000) };
  lastDone = done;
  samples.push(s);
}, SAMPLE_MS);

// Paced workers: together they start at most RATE requests per second, CONCURRENCY at a time.
const interval = (1000 * CONCURRENCY) / RATE;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() < deadline) {
      const t0 = Date.now();
      const [, kind, action] = pick();
      count(kind);
      try {
        await action();
      } catch (error) {
        expectThat(false, `${kind} threw: ${error?.message ?? error}`);
      }
      done++;
      const wait = interval - (Date.now() - t0);
      if (wait > 0) await sleep(Math.min(wait, deadline - Date.now()));
    }
  }),
);

// Load stopped: let go of every client socket, then wait (bounded) for descriptors to settle.
agent.destroy();
for (const s of openSockets) s.destroy();
let settled = probe();
for (let i = 0; i < 40 && settled.fds > baseline.fds + FD_SLACK; i++) {
  await sleep(500);
  settled = probe();
}
clearInterval(sampler);
const settledTargets = fdTargets();
const alive = childExit === undefined;

child.kill('SIGTERM');
const exit = await Promise.race([exited, sleep(15_000).then(() => undefined)]);
if (exit === undefined) child.kill('SIGKILL');
if (dataDir) rmSync(dataDir, { recursive: true, force: true });

// ---- the verdict ---------------------------------------------------------------------------------

const steady = samples.filter((s) => s.t >= SECONDS * WARMUP_FRACTION);
const third = Math.max(1, Math.floor(steady.length / 3));
const avg = (xs, key) => xs.reduce((a, s) => a + s[key], 0) / xs.length;
const firstRss = avg(steady.slice(0, third), 'rssMb');
const lastRss = avg(steady.slice(-third), 'rssMb');
const peakFds = Math.max(...samples.map((s) => s.fds));

const pad = (v, n) => String(v).padStart(n);
console.log(`\nsoak: ${SECONDS} s, ${args.store} store, rate ${RATE}/s, concurrency ${CONCURRENCY}, server pid ${child.pid}`);
console.log(`${pad('t (s)', 7)} ${pad('RSS (MB)', 9)} ${pad('fds', 5)} ${pad('req/s', 7)}`);
console.log(`${pad('start', 7)} ${pad(baseline.rssMb.toFixed(1), 9)} ${pad(baseline.fds, 5)} ${pad('-', 7)}`);
for (const s of samples) console.log(`${pad(s.t.toFixed(0), 7)} ${pad(s.rssMb.toFixed(1), 9)} ${pad(s.fds, 5)} ${pad(s.rps.toFixed(0), 7)}`);
console.log(`${pad('settled', 7)} ${pad(settled.rssMb.toFixed(1), 9)} ${pad(settled.fds, 5)} ${pad('-', 7)}`);
console.log(`\nrequests: ${done}  ${[...counts].map(([k, v]) => `${k}=${v}`).join('  ')}`);

const checks = [
  [steady.length >= 3, `at least 3 samples after warm-up (got ${steady.length}${steady.length < 3 ? "; run longer" : ""})`],
  [lastRss <= firstRss * RSS_FACTOR + RSS_SLACK_MB, `RSS steady: last third ${lastRss.toFixed(1)} MB vs first third ${firstRss.toFixed(1)} MB (limit x${RSS_FACTOR} + ${RSS_SLACK_MB} MB)`],
  [settled.fds <= baseline.fds + FD_SLACK, `fds back to baseline after the load: ${settled.fds} vs ${baseline.fds} at start (peak ${peakFds})`],
  [unexpected.length === 0, `every answer as expected (${counts.get('unexpected') ?? 0} unexpected)`],
  [alive, 'the server was alive at the end of the load'],
  [exit?.code === 0, `clean exit on SIGTERM (got ${JSON.stringify(exit ?? 'no exit in 15 s')})`],
];
for (const [ok, what] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
for (const u of unexpected) console.log(`  unexpected: ${u}`);
const kind = (t) => t.replace(/\d+/g, 'N');
const extra = settledTargets.map(kind).filter((t) => {
  const i = baselineTargets.map(kind).indexOf(t);
  return i < 0 || baselineTargets.splice(i, 1).length === 0;
});
console.log(`descriptors open after the load that were not open at start: ${extra.length ? extra.join(', ') : 'none'}`);
if (!alive || exit?.code !== 0) console.log(`server stderr (tail):\n${childStderr}`);
process.exit(checks.every(([ok]) => ok) ? 0 : 1);
