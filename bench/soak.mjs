// Soak test of the reference server (`npm run soak`, or `node bench/soak.mjs --seconds 60`).
//
// Starts the real CLI (packages/server/dist/cli.js) in a child process on 127.0.0.1, with the
// durable file store by default, and sends it mixed valid and hostile traffic from this process
// for a bounded time, at a bounded rate and concurrency. Every few seconds it samples the child's
// resident memory and open file descriptors from /proc. At the end it prints a table and fails
// (exit 1) when memory grew during the steady state, descriptors did not return to their baseline
// once the load stopped, a valid request got a wrong answer, or the server did not shut down
// cleanly on SIGTERM. Linux only (it reads /proc). Not part of `npm test`: it takes minutes.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { startServer } from './lib/serve.mjs';
import { createTraffic } from './lib/soak-traffic.mjs';

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
const dataDir = args.store === 'file' ? mkdtempSync(join(tmpdir(), 'plant-soak-')) : undefined;
const server = await startServer('cli', {
  tokens: [token],
  ...(dataDir ? { data: join(dataDir, 'plants.log') } : {}),
}).catch((error) => fail(`server did not start: ${error.message}`));
const port = Number(new URL(server.url).port);
let childExit;
server.exited.then((exit) => (childExit = exit));

/** What each open descriptor of the server points at (socket:[…], a file, anon_inode:[eventpoll]). */
function fdTargets() {
  const dir = `/proc/${server.pid}/fd`;
  return (readdirSafe(dir) ?? []).map((fd) => {
    try {
      return readlinkSync(`${dir}/${fd}`);
    } catch {
      return '?';
    }
  });
}

function probe() {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  const fds = readdirSafe(`/proc/${server.pid}/fd`)?.length ?? NaN;
  return { rssMb: rssKb / 1024, fds };
}

// ---- the traffic -----------------------------------------------------------------------------

const { pick, count, expectThat, counts, unexpected, close } = createTraffic({
  port,
  token,
  concurrency: CONCURRENCY,
  idSpace: ID_SPACE,
});

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
close();
let settled = probe();
for (let i = 0; i < 40 && settled.fds > baseline.fds + FD_SLACK; i++) {
  await sleep(500);
  settled = probe();
}
clearInterval(sampler);
const settledTargets = fdTargets();
const alive = childExit === undefined;

const stopped = await server.stop(15_000);
const exit = stopped.killed ? undefined : stopped;
if (dataDir) rmSync(dataDir, { recursive: true, force: true });

// ---- the verdict ---------------------------------------------------------------------------------

const steady = samples.filter((s) => s.t >= SECONDS * WARMUP_FRACTION);
const third = Math.max(1, Math.floor(steady.length / 3));
const avg = (xs, key) => xs.reduce((a, s) => a + s[key], 0) / xs.length;
const firstRss = avg(steady.slice(0, third), 'rssMb');
const lastRss = avg(steady.slice(-third), 'rssMb');
const peakFds = Math.max(...samples.map((s) => s.fds));

const pad = (v, n) => String(v).padStart(n);
console.log(
  `\nsoak: ${SECONDS} s, ${args.store} store, rate ${RATE}/s, concurrency ${CONCURRENCY}, server pid ${server.pid}`,
);
console.log(`${pad('t (s)', 7)} ${pad('RSS (MB)', 9)} ${pad('fds', 5)} ${pad('req/s', 7)}`);
console.log(`${pad('start', 7)} ${pad(baseline.rssMb.toFixed(1), 9)} ${pad(baseline.fds, 5)} ${pad('-', 7)}`);
for (const s of samples)
  console.log(`${pad(s.t.toFixed(0), 7)} ${pad(s.rssMb.toFixed(1), 9)} ${pad(s.fds, 5)} ${pad(s.rps.toFixed(0), 7)}`);
console.log(`${pad('settled', 7)} ${pad(settled.rssMb.toFixed(1), 9)} ${pad(settled.fds, 5)} ${pad('-', 7)}`);
console.log(`\nrequests: ${done}  ${[...counts].map(([k, v]) => `${k}=${v}`).join('  ')}`);

const checks = [
  [
    steady.length >= 3,
    `at least 3 samples after warm-up (got ${steady.length}${steady.length < 3 ? '; run longer' : ''})`,
  ],
  [
    lastRss <= firstRss * RSS_FACTOR + RSS_SLACK_MB,
    `RSS steady: last third ${lastRss.toFixed(1)} MB vs first third ${firstRss.toFixed(1)} MB (limit x${RSS_FACTOR} + ${RSS_SLACK_MB} MB)`,
  ],
  [
    settled.fds <= baseline.fds + FD_SLACK,
    `fds back to baseline after the load: ${settled.fds} vs ${baseline.fds} at start (peak ${peakFds})`,
  ],
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
if (!alive || exit?.code !== 0) console.log(`server stderr (tail):\n${server.stderr().slice(-4000)}`);
process.exit(checks.every(([ok]) => ok) ? 0 : 1);
