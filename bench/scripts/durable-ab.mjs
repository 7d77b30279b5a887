// A/B of the durable server row against the in-memory one, without the rest of the bench: the same
// pinned processes and autocannon load as `npm run bench` (lib/serve.mjs, lib/load.mjs), unique-id
// creates only, and per row the figures that say where a durable create's CPU goes: user and system
// time of the server process (its fs thread pool included), the other threads' share, context
// switches, and the file store's records per write (the average batch, from its stats()).
//
// Usage (alone on the machine, or under a CPU lock on a shared one):
//   node bench/scripts/durable-ab.mjs [rounds=3]
// Environment: DURABLE_AB=name=/abs/module.mjs,… adds a durable row per module named, each exporting
// `start(options)` as BENCH_CANDIDATE does (given `data`, the log's path; resolving { url, close,
// store }): e.g. a copy of the server and file store from before a change. BENCH_DURATION (6),
// BENCH_CONNECTIONS (16).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChild } from '../lib/proc.mjs';
import { startServer } from '../lib/serve.mjs';

const LOAD = fileURLToPath(new URL('../lib/load.mjs', import.meta.url));
const rounds = Number(process.argv[2] ?? 3);
const duration = Number(process.env.BENCH_DURATION ?? 6);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TOKEN = 'durable-ab';

const rows = [
  { id: 'memory', kind: 'ours' },
  { id: 'durable', kind: 'ours', durable: true },
  ...(process.env.DURABLE_AB ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const [id, module] = pair.split('=');
      return { id, kind: 'module', module, durable: true };
    }),
];

/**
 * User and system ticks of every thread of `pid`, and of the threads other than the main one (the fs
 * thread pool, plus V8's GC and compiler threads: they are all named "node", so they are told apart
 * only from the main thread).
 */
function sample(pid) {
  const out = { user: 0, system: 0, poolUser: 0, poolSystem: 0, voluntary: 0, involuntary: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    let status;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    out.user += user;
    out.system += system;
    if (tid !== String(pid)) {
      out.poolUser += user;
      out.poolSystem += system;
    }
    out.voluntary += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
    out.involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)[1]);
  }
  return out;
}

function lastStats(text) {
  const lines = text.split('\n').filter((line) => line.startsWith('STATS '));
  return lines.map((line) => JSON.parse(line.slice(6)));
}

async function benchOne(row, round, tmp) {
  const options = { tokens: [TOKEN] };
  if (row.module) options.module = row.module;
  if (row.durable) options.data = join(tmp, `${row.id}-${round}.log`);
  const running = await startServer(row.kind, options, { core: 0 });
  let before;
  let after;
  try {
    const result = await runChild(
      [
        LOAD,
        JSON.stringify({
          url: running.url,
          token: TOKEN,
          workload: 'unique',
          connections,
          duration,
          warmup: 2,
          idBase: 1_000_000_000 * (round + 1),
        }),
      ],
      {
        core: 1,
        timeoutMs: (duration + 2) * 1000 + 60_000,
        onLine(line) {
          if (line.startsWith('PHASE measure')) {
            before = sample(running.pid);
            process.kill(running.pid, 'SIGUSR2');
          } else if (line.startsWith('RESULT')) {
            after = sample(running.pid);
            process.kill(running.pid, 'SIGUSR2');
          }
        },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stats = lastStats(running.stderr());
    const total = result.total;
    const us = (ticks) => (ticks * 10_000) / total; // clock ticks are 10 ms
    const out = {
      rps: result.rps,
      cpuUs: us(after.user + after.system - before.user - before.system),
      userUs: us(after.user - before.user),
      sysUs: us(after.system - before.system),
      poolUs: us(after.poolUser + after.poolSystem - before.poolUser - before.poolSystem),
      ctxPerReq: (after.voluntary + after.involuntary - before.voluntary - before.involuntary) / total,
      p99Ms: result.p99Ms,
      ok: Object.keys(result.statusCodes).join(',') === '200',
    };
    if (stats.length >= 2 && stats[0].records !== undefined) {
      const records = stats[1].records - stats[0].records;
      const writes = stats[1].writes - stats[0].writes;
      out.batch = records / writes;
      out.writesPerS = writes / result.seconds;
    }
    return out;
  } finally {
    await running.stop();
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'durable-ab-'));
const f = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '—');
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    const results = {};
    for (const row of order) results[row.id] = await benchOne(row, round, tmp);
    for (const row of rows) {
      const r = results[row.id];
      const ratio = row.id === 'memory' ? '' : ` ratio ${f(r.rps / results.memory.rps, 2)}x`;
      console.log(
        `round ${round + 1} ${row.id.padEnd(8)} ${f(r.rps, 0).padStart(6)} req/s${ratio} | cpu ${f(r.cpuUs)} µs/req (user ${f(r.userUs)}, sys ${f(r.sysUs)}, other threads ${f(r.poolUs)}) | ctx ${f(r.ctxPerReq, 2)}/req | batch ${f(r.batch, 2)} (${f(r.writesPerS, 0)} writes/s) | p99 ${f(r.p99Ms, 2)} ms${r.ok ? '' : ' | UNEXPECTED STATUSES'}`,
      );
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
