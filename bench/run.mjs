// `npm run bench`: measures the plant store against its targets (issue 5) and writes the dated
// table to bench/RESULTS.md. Servers and load generator run in separate processes pinned to
// separate cores (taskset), on 127.0.0.1 only; every run is bounded and stops by itself.
//
// Environment:
//   BENCH_QUICK=1          short runs (1 s warm-up + 2 s, one round) to try the harness
//   BENCH_ONLY=servers,client,msw,memory,bundle   run a subset (RESULTS.md is written only by a full run)
//   BENCH_PROFILE=1        run our server with --cpu-prof into bench/profiles/ (raw too, to compare)
//   BENCH_ROUNDS, BENCH_DURATION, BENCH_CONNECTIONS, BENCH_HEAD_BLOCKS   override the server plan
//   BENCH_CANDIDATE=/abs/path.mjs   adds a row, and a head-to-head pair against ours, for a module
//                          exporting `start(options)` → { url, close }
//                          (e.g. a patched copy of packages/server/dist/index.js), to A/B a change
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, cores, procCpuSeconds, procStatusKiB, runChild, startLoader, startServer } from './lib/proc.mjs';
import { runContractChecks } from './lib/contract-checks.mjs';
import { countInstructions } from './lib/client-instructions.mjs';
import { countServerInstructions } from './lib/server-instructions.mjs';
import { hasValgrind } from './lib/valgrind.mjs';
import { median } from './lib/alternate.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : undefined;
const PROFILE = env.BENCH_PROFILE === '1';
const plan = {
  connections: Number(env.BENCH_CONNECTIONS ?? 16),
  warmup: QUICK ? 1 : 2,
  duration: Number(env.BENCH_DURATION ?? (QUICK ? 2 : 4)),
  // Rounds of the servers run one at a time (the table's absolute figures, p99 and RSS, and the
  // durable rows). An even count, so that each order of the servers (see alternated) runs as often
  // as the other.
  rounds: Number(env.BENCH_ROUNDS ?? (QUICK ? 1 : 6)),
  // Head-to-head runs (see benchHeadToHead): blocks of a fresh pair of servers, each with an even
  // number of rounds of `headDuration` seconds, the two servers' start order swapped every round.
  headBlocks: Number(env.BENCH_HEAD_BLOCKS ?? (QUICK ? 1 : 8)),
  headRounds: 2,
  headDuration: QUICK ? 1 : 2,
};
// Few long rounds: at ~0.4 ms a call, a round of 150 calls moved by ±25% on one stall of the VM.
const clientCalls = QUICK ? 600 : 6000;
const memoryCount = QUICK ? 100_000 : 1_000_000;
const TOKEN = `bench-${randomBytes(12).toString('hex')}`;
const SERVER_CORE = 0;
const LOAD_CORE = 1;
const wants = (part) => ONLY === undefined || ONLY.has(part);
const log = (line) => process.stderr.write(`${line}\n`);

const fmt = {
  int: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—'),
  ms: (n) => (Number.isFinite(n) ? n.toFixed(2) : '—'),
  us: (n) => (Number.isFinite(n) ? n.toFixed(1) : '—'),
  ratio: (n) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : '—'),
  mib: (n) => (Number.isFinite(n) ? n.toFixed(1) : '—'),
  pct: (n) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '—'),
};
const met = (ok) => (ok === undefined ? '—' : ok ? 'yes' : '**no**');
const errorText = (error) => String(error?.message ?? error).split('\n')[0].slice(0, 160);

// ---------------------------------------------------------------- servers under autocannon

// Ours sits between raw and fastify, so that both of its ratios are taken between runs that were
// back to back (see benchServers).
const SERVERS = [
  { id: 'raw', label: 'raw node:http (bench/baselines/raw-node.mjs)', kind: 'raw' },
  { id: 'ours', label: '@plant-store/server (memory)', kind: 'ours' },
  { id: 'fastify', label: 'fastify 5 + route JSON schema', kind: 'fastify' },
  { id: 'durable', label: '@plant-store/server (`data`, fsync per ack)', kind: 'ours', durable: true },
  ...(env.BENCH_CANDIDATE ? [{ id: 'candidate', label: `candidate \`${env.BENCH_CANDIDATE.split('/').pop()}\``, kind: 'module' }] : []),
];
// The runs of ours that the durable rows are paired with (see benchServers), apart from the row's own.
const DURABLE_PAIR = 'ours-beside-durable';
// Head-to-head pairs, a / b (see benchHeadToHead). The control runs the raw server against a second
// copy of itself: its ratio should be 1.00x, and how far its rounds stray shows the method's noise.
const HEAD_TO_HEAD = [
  { a: 'ours', b: 'raw' },
  { a: 'ours', b: 'fastify' },
  { a: 'raw', b: 'raw', control: true },
  ...(env.BENCH_CANDIDATE ? [{ a: 'candidate', b: 'ours' }] : []),
];
const headKey = (pair, workload) => `${pair.a}~${pair.b}/${workload.id}`;
const WORKLOADS = [
  { id: 'unique', label: 'unique ids (200 create)', expect: (codes) => only(codes, ['200']) },
  { id: 'fixed', label: 'fixed id (replay 200 / 40003)', expect: (codes) => only(codes, ['200', '400']) && balanced(codes) },
];
function only(codes, allowed) {
  return Object.keys(codes).every((code) => allowed.includes(code)) && Object.keys(codes).length > 0;
}
function balanced(codes) {
  const a = codes['200'] ?? 0;
  const b = codes['400'] ?? 0;
  return Math.abs(a - b) <= Math.max(2, 0.02 * (a + b));
}

function serverOptions(server, tmp) {
  const options = { tokens: [TOKEN] };
  if (server.kind === 'module') options.module = env.BENCH_CANDIDATE;
  if (server.durable) options.data = join(tmp, `plants-${Date.now()}-${Math.random().toString(16).slice(2)}.log`);
  return options;
}

async function benchOne(server, workload, round, tmp) {
  const nodeArgs = [];
  if (PROFILE && (server.kind === 'ours' || server.kind === 'raw')) {
    const dir = join(HERE, 'profiles', `${server.id}-${workload.id}`);
    mkdirSync(dir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const running = await startServer(server.kind, serverOptions(server, tmp), { core: SERVER_CORE, nodeArgs });
  try {
    let cpuStart = NaN;
    let cpuEnd = NaN;
    let started = 0;
    let ended = 0;
    const result = await runChild(
      [
        join(HERE, 'lib', 'load.mjs'),
        JSON.stringify({
          url: running.url,
          token: TOKEN,
          workload: workload.id,
          connections: plan.connections,
          duration: plan.duration,
          warmup: plan.warmup,
          // Distinct per round, so a reused id never turns a create into a replay.
          idBase: 1_000_000_000 * (round + 1),
        }),
      ],
      {
        core: LOAD_CORE,
        timeoutMs: (plan.warmup + plan.duration) * 1000 + 60_000,
        onLine(line) {
          if (line.startsWith('PHASE measure')) {
            cpuStart = procCpuSeconds(running.pid);
            started = performance.now();
          } else if (line.startsWith('RESULT')) {
            cpuEnd = procCpuSeconds(running.pid);
            ended = performance.now();
          }
        },
      },
    );
    return {
      ...result,
      serverCpu: (cpuEnd - cpuStart) / ((ended - started) / 1000),
      // CPU time per answer is the figure least moved by other tenants of a shared machine: being
      // descheduled costs req/s and latency, not CPU seconds.
      cpuUsPerRequest: ((cpuEnd - cpuStart) * 1e6) / result.total,
      peakRssMiB: procStatusKiB(running.pid, 'VmHWM') / 1024,
      valid: workload.expect(result.statusCodes),
    };
  } finally {
    await running.stop();
  }
}

async function benchServers(tmp) {
  const available = [];
  const pending = new Map();
  const checks = new Map();
  for (const server of SERVERS) {
    try {
      const running = await startServer(server.kind, serverOptions(server, tmp), { core: SERVER_CORE });
      try {
        checks.set(server.id, await runContractChecks(running.url, TOKEN));
      } finally {
        await running.stop();
      }
      available.push(server);
    } catch (error) {
      pending.set(server.id, errorText(error));
      log(`bench: ${server.id} pending: ${errorText(error)}`);
    }
  }

  // runs: `server/workload` → one result per round (undefined where that round failed).
  const runs = new Map();
  const record = async (server, key, workload, round) => {
    log(`bench: round ${round + 1}/${plan.rounds} ${key}`);
    if (!runs.has(key)) runs.set(key, new Array(plan.rounds).fill(undefined));
    try {
      runs.get(key)[round] = await benchOne(server, workload, round, tmp);
    } catch (error) {
      pending.set(server.id, errorText(error));
      log(`bench: ${key} failed: ${errorText(error)}`);
    }
  };
  // The in-memory servers first: raw, ours, fastify, reversed every other round so that drift on a
  // shared machine does not always land on the same contender, and ours always runs right next to
  // each baseline.
  const memory = available.filter((server) => !server.durable);
  for (let round = 0; round < plan.rounds; round++) {
    for (const workload of WORKLOADS) {
      for (const server of alternated(memory, round)) await record(server, `${server.id}/${workload.id}`, workload, round);
    }
  }
  const head = await benchHeadToHead(memory, pending, tmp);
  // Then the durable ones, each round paired with a run of ours of its own (the durable / memory
  // ratio's denominator). Apart, because a durable run may leave the kernel busy with its log for a
  // while: the raw server run right after one (and sync and a pause) measured 0.97x of a raw run
  // after it, median of 12 pairs (0.91-1.07, so not certain). Among the memory rounds that would
  // land on whichever baseline ran next.
  const ours = available.find((server) => server.id === 'ours');
  const durable = available.filter((server) => server.durable);
  for (let round = 0; ours && durable.length && round < plan.rounds; round++) {
    for (const workload of WORKLOADS) {
      for (const server of alternated([ours, ...durable], round)) {
        await record(server, `${server.durable ? server.id : DURABLE_PAIR}/${workload.id}`, workload, round);
        if (server.durable) await settle();
      }
    }
  }

  // Each row shows its median round by req/s (peak RSS: the highest of any round).
  const medianRounds = new Map();
  for (const [key, results] of runs) {
    const done = results.filter(Boolean).sort((a, b) => a.rps - b.rps);
    if (done.length === 0) continue;
    const mid = done[(done.length - 1) >> 1];
    medianRounds.set(key, { ...mid, peakRssMiB: Math.max(...done.map((r) => r.peakRssMiB)), rounds: results.map((r) => r?.rps) });
  }
  return { medianRounds, runs, head, pending, checks };
}

/**
 * Head-to-head runs: two servers on the same core at the same time, each driven by as many
 * connections as it gets alone, from one load generator, so that whatever the machine's other
 * tenants do falls on both alike. Run one after the other, two servers' req/s ratio moves with the
 * VM's steal: in the servers-only run of 00:10 UTC on 22 Nov, ours / raw went 0.83-1.48 from one
 * 4 s round to the next, and two copies of the raw server timed in alternate 1 s bursts (00:05)
 * 0.52-1.38. Side by side in that run, the two copies stayed within 0.95-1.03 of each other over 16
 * rounds (1.00x). Both servers are busy the whole window (neither runs out of requests), so the
 * scheduler gives each half the core and each one's req/s is what its own work per request allows:
 * the pair served as many requests in all as one server alone, at the same CPU time per request
 * (by hand, 00:08). A server not limited by its CPU would gain the other's idle time; the
 * one-at-a-time rounds show every server here near 100% of its core. Fresh pairs rather than more
 * rounds per pair: a pair's processes share a JIT history, and ours / fastify on a fixed id came
 * out 1.21-1.24 in one block of that run and 0.99-1.17 in the three others.
 * @returns {Map<string, ({ a: object, b: object } | undefined)[]>} `headKey` → every round's two
 *   results (undefined for the rounds of a block that failed)
 */
async function benchHeadToHead(available, pending, tmp) {
  const byId = new Map(available.map((server) => [server.id, server]));
  const head = new Map();
  const loader = startLoader({ core: LOAD_CORE });
  try {
    for (const pair of HEAD_TO_HEAD) {
      const a = byId.get(pair.a);
      const b = byId.get(pair.b);
      if (!a || !b) continue;
      for (const workload of WORKLOADS) {
        const key = headKey(pair, workload);
        const rounds = [];
        head.set(key, rounds);
        for (let block = 0; block < plan.headBlocks; block++) {
          log(`bench: head to head ${key}, block ${block + 1}/${plan.headBlocks}`);
          const running = [];
          try {
            for (const server of [a, b]) running.push(await startServer(server.kind, serverOptions(server, tmp), { core: SERVER_CORE }));
            const load = { token: TOKEN, workload: workload.id, connections: plan.connections, warmup: 0 };
            await loader.burst({ ...load, urls: running.map((r) => r.url), duration: plan.warmup });
            for (let round = 0; round < plan.headRounds; round++) {
              // autocannon starts the first url's connections a moment before the second's.
              const order = round % 2 === 0 ? running : [...running].reverse();
              let cpuStart;
              let cpuEnd;
              const { results } = await loader.burst(
                { ...load, urls: order.map((r) => r.url), duration: plan.headDuration },
                {
                  timeoutMs: plan.headDuration * 1000 + 60_000,
                  onLine(line) {
                    if (line.startsWith('PHASE measure')) cpuStart = running.map((r) => procCpuSeconds(r.pid));
                    else if (line.startsWith('RESULT')) cpuEnd = running.map((r) => procCpuSeconds(r.pid));
                  },
                },
              );
              const [ra, rb] = order === running ? results : [...results].reverse();
              const withCpu = (result, i) => ({
                ...result,
                cpuUsPerRequest: ((cpuEnd[i] - cpuStart[i]) * 1e6) / result.total,
                valid: workload.expect(result.statusCodes),
              });
              rounds.push({ a: withCpu(ra, 0), b: withCpu(rb, 1) });
            }
          } catch (error) {
            pending.set(key, errorText(error));
            log(`bench: ${key} failed: ${errorText(error)}`);
            // The block's missing rounds stay as gaps, so that the next blocks' rounds still pair
            // with their own block's (see headRatio).
            while (rounds.length < (block + 1) * plan.headRounds) rounds.push(undefined);
          } finally {
            for (const r of running) await r.stop();
          }
        }
      }
    }
  } finally {
    await loader.stop();
  }
  return head;
}

/**
 * A head-to-head ratio a/b of `field`: per round, then the geometric mean of each two rounds in a
 * row (the two start orders), then the median of those pairs, as for pairedRatio.
 */
function headRatio(rounds = [], field = 'rps') {
  return pairMedian(rounds.map((round) => (round ? round.a[field] / round.b[field] : NaN)));
}

/** `servers` in their order in even rounds, reversed in odd ones. */
function alternated(servers, round) {
  return round % 2 === 0 ? servers : [...servers].reverse();
}

/** After a durable run: its log flushed by the kernel and a pause, before the next server starts. */
async function settle() {
  spawnSync('sync');
  await new Promise((resolve) => setTimeout(resolve, 2000));
}

/** The servers' instruction counts as a note, and their ratios as reported figures. */
function serverInstructionLines(instructions, targets) {
  if (instructions?.value === undefined) return [`- Instructions per request: not counted (${instructions?.pending ?? 'not run'}).`];
  const by = Object.fromEntries(instructions.value.map((r) => [r.id, r.perRequest]));
  const fixed = Object.fromEntries(instructions.fixed.map((r) => [r.id, r.perRequest]));
  const vsRaw = by.ours / by.raw;
  const vsFastify = by.ours / by.fastify;
  targets.push(
    { what: 'server instructions per request vs raw (unique / fixed; valgrind, user space)', figure: `${fmt.ratio(vsRaw)} / ${fmt.ratio(fixed.ours / fixed.raw)}`, target: 'reported (steady figure)', ok: undefined },
    { what: 'server instructions per request vs fastify (unique / fixed; valgrind, user space)', figure: `${fmt.ratio(vsFastify)} / ${fmt.ratio(fixed.ours / fixed.fastify)}`, target: 'reported (steady figure)', ok: undefined },
  );
  return [
    `- Instructions per request (valgrind cachegrind on the server, user space; 500 requests over 4 keep-alive connections subtracted from 2,500): unique creates raw ${fmt.int(by.raw)}, fastify ${fmt.int(by.fastify)}, ours ${fmt.int(by.ours)}: ours **${fmt.ratio(vsRaw)}** of raw and **${fmt.ratio(vsFastify)}** of fastify; fixed id (replay 200 and 40003 in turn) raw ${fmt.int(fixed.raw)}, fastify ${fmt.int(fixed.fastify)}, ours ${fmt.int(fixed.ours)}: ours **${fmt.ratio(fixed.ours / fixed.raw)}** of raw and **${fmt.ratio(fixed.ours / fixed.fastify)}** of fastify. Unlike req/s and CPU time, which move with the other tenants of this VM, these ratios repeated within a few percent across counts (the absolute counts move with how many requests reach the slowed server per event-loop turn) and show the servers' own work; the kernel's share of a request (the same sockets for all three) is left out.`,
  ];
}

/**
 * The ratio of two rows, a/b of `field`: taken within each round (the two ran back to back, so a
 * slow spell on this shared machine moves both), then as the geometric mean of each two rounds in
 * a row, which ran the servers in opposite orders (see alternated), then the median over those
 * pairs. A pair cancels whatever a server's place in the order does to it. With the median of 7
 * single rounds (4 in one order, 3 in the other) it did not: on a fixed id, ours / raw came out
 * lower in the rounds where raw ran first in three of four runs (20:33 UTC: 0.86-0.91 against
 * 1.01-1.04), and the median of rounds fell among them.
 */
function pairedRatio({ runs }, a, b, field = 'rps') {
  const ra = runs.get(a);
  const rb = runs.get(b);
  if (!ra || !rb) return { ratio: NaN, rounds: [] };
  return pairMedian(ra.map((x, i) => (x && rb[i] ? x[field] / rb[i][field] : NaN)));
}

/** The median of the geometric means of each two rounds in a row (see pairedRatio). */
function pairMedian(rounds) {
  const pairs = [];
  for (let i = 0; i < rounds.length; i += 2) {
    // A failed round leaves its pair one round; an odd BENCH_ROUNDS leaves the last one alone.
    const pair = rounds.slice(i, i + 2).filter(Number.isFinite);
    if (pair.length > 0) pairs.push(Math.exp(pair.reduce((sum, x) => sum + Math.log(x), 0) / pair.length));
  }
  return { ratio: median(pairs), rounds };
}

function serverRows(servers) {
  const { medianRounds, pending, checks } = servers;
  const rows = [];
  const targets = [];
  const ratioNotes = [];
  const roundsText = (rounds) => rounds.map((x) => (Number.isFinite(x) ? x.toFixed(2) : '—')).join(', ');
  for (const workload of WORKLOADS) {
    const key = (id) => `${id}/${workload.id}`;
    const vsRaw = (id, field) => pairedRatio(servers, key(id), key('raw'), field);
    for (const server of SERVERS) {
      const r = medianRounds.get(key(server.id));
      let target = '';
      let ok;
      if (server.id === 'raw') target = 'baseline';
      else if (server.id === 'fastify' || server.id === 'candidate') target = 'reference';
      else if (server.id === 'ours') {
        target = '≥ 0.92x raw req/s and > fastify (head to head), p99 ≤ 1.2x raw';
        const rps = headRatio(servers.head.get(`ours~raw/${workload.id}`));
        const fastify = headRatio(servers.head.get(`ours~fastify/${workload.id}`));
        const p99 = vsRaw('ours', 'p99Ms');
        const parts = { rps: rps.ratio >= 0.92, fastify: fastify.ratio > 1, p99: p99.ratio <= 1.2 };
        const judged = (ratio, what, limit, ok) =>
          targets.push({ what, figure: Number.isFinite(ratio) ? fmt.ratio(ratio) : 'pending', target: limit, ok: Number.isFinite(ratio) ? ok : undefined });
        judged(rps.ratio, `server req/s vs raw, head to head (${workload.id})`, '≥ 0.92x', parts.rps);
        judged(fastify.ratio, `server req/s vs fastify, head to head (${workload.id})`, '> 1.00x', parts.fastify);
        judged(p99.ratio, `server p99 vs raw, one at a time (${workload.id})`, '≤ 1.2x', parts.p99);
        if ([rps, fastify, p99].every((x) => Number.isFinite(x.ratio))) ok = parts.rps && parts.fastify && parts.p99;
        const alone = vsRaw('ours', 'rps');
        const aloneFastify = pairedRatio(servers, key('ours'), key('fastify'));
        const cpu = pairedRatio(servers, key('ours'), key('fastify'), 'cpuUsPerRequest');
        ratioNotes.push(
          `- ${workload.label}, one at a time, per round: ours / raw req/s ${roundsText(alone.rounds)} (paired ${fmt.ratio(alone.ratio)}); ours / fastify ${roundsText(aloneFastify.rounds)} (paired ${fmt.ratio(aloneFastify.ratio)}); p99 ours / raw ${roundsText(p99.rounds)}; server CPU per request ours / fastify ${roundsText(cpu.rounds)} (paired ${fmt.ratio(cpu.ratio)}).`,
        );
      } else if (server.id === 'durable') {
        target = '≥ 0.5x memory req/s';
        const durable = pairedRatio(servers, key('durable'), key(DURABLE_PAIR));
        if (Number.isFinite(durable.ratio)) {
          ok = durable.ratio >= 0.5;
          targets.push({ what: `durable req/s vs memory (${workload.id})`, figure: fmt.ratio(durable.ratio), target: '≥ 0.5x', ok });
          ratioNotes.push(`- ${workload.label}, per round: durable / memory req/s ${roundsText(durable.rounds)}.`);
        } else {
          targets.push({ what: `durable req/s vs memory (${workload.id})`, figure: 'pending', target: '≥ 0.5x', ok: undefined });
        }
      }
      if (r === undefined) {
        rows.push(`| ${server.label} | ${workload.label} | pending: ${pending.get(server.id) ?? 'not run'} | | | | | | | | | | ${target} | pending |`);
        continue;
      }
      const statuses = Object.entries(r.statusCodes).map(([code, count]) => `${code}: ${fmt.int(count)}`).join(', ');
      const check = checks.get(server.id);
      const contract = check ? `${check.total - check.failed.length}/${check.total}` : '—';
      const raw = server.id !== 'raw' && medianRounds.has(key('raw'));
      rows.push(
        `| ${server.label} | ${workload.label} | ${fmt.int(r.rps)} | ${raw ? fmt.ratio(vsRaw(server.id, 'rps').ratio) : '1.00x'} | ${fmt.ms(r.p50Ms)} | ${fmt.ms(r.p99Ms)} | ${raw ? fmt.ratio(vsRaw(server.id, 'p99Ms').ratio) : '1.00x'} | ${fmt.us(r.cpuUsPerRequest)}${raw ? ` (${fmt.ratio(vsRaw(server.id, 'cpuUsPerRequest').ratio)})` : ''} | ${fmt.mib(r.peakRssMiB)} | ${fmt.pct(r.serverCpu)} / ${fmt.pct(r.loaderCpu)} | ${r.valid ? '' : '**unexpected** '}${statuses}${r.errors ? `, errors: ${r.errors}` : ''} | ${contract} | ${target} | ${target === 'baseline' || target === 'reference' ? '—' : met(ok)} |`,
      );
    }
  }
  const table = [
    '| server | workload | req/s | vs raw, one at a time | p50 ms | p99 ms | p99 vs raw | server CPU µs/req (vs raw) | peak RSS MiB | CPU use server / loader | statuses | contract checks | target | met |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|',
    ...rows,
  ];
  const notes = [...ratioNotes];
  for (const [id, check] of checks) {
    if (check.failed.length) notes.push(`- ${id} fails contract checks: ${check.failed.join('; ')}.`);
  }
  return { table, targets, notes, head: headRows(servers) };
}

/** The head-to-head table (see benchHeadToHead) and its per-round ratios. */
function headRows({ head, pending }) {
  const label = (id) => SERVERS.find((server) => server.id === id)?.label ?? id;
  const rows = [];
  const notes = [];
  const mid = (values) => median(values.filter(Number.isFinite));
  const range = (values) => {
    const finite = values.filter(Number.isFinite);
    return finite.length ? `${Math.min(...finite).toFixed(2)}-${Math.max(...finite).toFixed(2)}` : '—';
  };
  for (const pair of HEAD_TO_HEAD) {
    for (const workload of WORKLOADS) {
      const key = headKey(pair, workload);
      const all = head?.get(key) ?? [];
      const rounds = all.filter(Boolean);
      const name = pair.control ? `${label(pair.a)} vs a second copy (control)` : `${label(pair.a)} vs ${label(pair.b)}`;
      if (rounds.length === 0) {
        rows.push(`| ${name} | ${workload.label} | pending: ${pending.get(key) ?? 'not run'} | | | | | | |`);
        continue;
      }
      const rps = headRatio(all);
      const p99 = headRatio(all, 'p99Ms');
      const cpu = headRatio(all, 'cpuUsPerRequest');
      const of = (side, field) => mid(rounds.map((r) => r[side][field]));
      const valid = rounds.every((r) => r.a.valid && r.b.valid);
      // Connection errors (a server that died or refused) have no status: counted apart, as in the
      // table above.
      const errorsText = (side) => {
        const errors = rounds.reduce((sum, r) => sum + (r[side].errors ?? 0), 0);
        return errors ? `, errors: ${fmt.int(errors)}` : '';
      };
      const statuses = (side) =>
        Object.entries(rounds.reduce((sum, r) => {
          for (const [code, count] of Object.entries(r[side].statusCodes)) sum[code] = (sum[code] ?? 0) + count;
          return sum;
        }, {})).map(([code, count]) => `${code}: ${fmt.int(count)}`).join(', ') + errorsText(side);
      rows.push(
        `| ${name} | ${workload.label} | ${fmt.int(of('a', 'rps'))} / ${fmt.int(of('b', 'rps'))} | **${fmt.ratio(rps.ratio)}** | ${range(rps.rounds)} | ${fmt.ms(of('a', 'p99Ms'))} / ${fmt.ms(of('b', 'p99Ms'))} (${fmt.ratio(p99.ratio)}) | ${fmt.us(of('a', 'cpuUsPerRequest'))} / ${fmt.us(of('b', 'cpuUsPerRequest'))} (${fmt.ratio(cpu.ratio)}) | ${rounds.length} | ${valid ? '' : '**unexpected** '}${statuses('a')} / ${statuses('b')} |`,
      );
      notes.push(`- ${name}, ${workload.label}, req/s a / b per round: ${rps.rounds.map((x) => (Number.isFinite(x) ? x.toFixed(2) : '—')).join(', ')}.`);
    }
  }
  return {
    table: [
      '| a vs b | workload | req/s a / b (median round) | a / b req/s | per-round range | p99 ms a / b (ratio) | server CPU µs/req a / b (ratio) | rounds | statuses a / b |',
      '|---|---|--:|--:|--:|--:|--:|--:|---|',
      ...rows,
    ],
    notes,
  };
}

// ---------------------------------------------------------------- client, mocks, memory, bundle

async function benchClient() {
  const trivial = await startServer('trivial', {}, { core: SERVER_CORE });
  try {
    const results = await runChild(
      [join(HERE, 'lib', 'client-bench.mjs'), JSON.stringify({ url: trivial.url, token: TOKEN, calls: clientCalls, rounds: 10 })],
      { core: LOAD_CORE, timeoutMs: 120_000 },
    );
    let instructions;
    if (QUICK) instructions = { pending: 'not counted in a quick run' };
    else if (!hasValgrind) instructions = { pending: 'valgrind is not installed' };
    else {
      log('bench: client instructions (valgrind, about 5 minutes)');
      instructions = await countInstructions({ url: trivial.url, token: TOKEN, names: ['createPlant', 'raw fetch', 'openapi-fetch', 'createPlant + timeout', 'raw fetch + timeout'], core: canPin && cores >= 2 ? LOAD_CORE : undefined })
        .then((value) => ({ value }))
        .catch((error) => ({ pending: errorText(error) }));
    }
    return { contenders: results, instructions };
  } finally {
    await trivial.stop();
  }
}

async function benchMsw() {
  return runChild([join(HERE, 'lib', 'msw-bench.mjs'), JSON.stringify({ calls: clientCalls, rounds: 10 })], { core: LOAD_CORE, timeoutMs: 120_000 });
}

async function benchMemory(tmp) {
  const results = [];
  for (const ids of ['small', 'large']) {
    results.push(
      await runChild([join(HERE, 'lib', 'memory-1m.mjs'), JSON.stringify({ count: memoryCount, ids })], {
        core: SERVER_CORE,
        nodeArgs: ['--expose-gc'],
        timeoutMs: 240_000,
      }),
    );
  }
  // The durable store: a log of the same plants written by one process, reopened by another.
  for (const ids of ['small', 'large']) {
    const path = join(tmp, `memory-${ids}.log`);
    const script = join(HERE, 'lib', 'memory-1m.mjs');
    const config = { count: memoryCount, ids, store: 'file', path };
    await runChild([script, JSON.stringify({ ...config, phase: 'fill' })], { core: SERVER_CORE, timeoutMs: 300_000 });
    results.push(
      await runChild([script, JSON.stringify({ ...config, phase: 'open' })], {
        core: SERVER_CORE,
        nodeArgs: ['--expose-gc'],
        timeoutMs: 240_000,
      }),
    );
    rmSync(path, { force: true });
  }
  return results;
}

async function benchBundle() {
  return runChild([join(HERE, 'lib', 'bundle.mjs')], { timeoutMs: 60_000 });
}

async function attempt(part, run) {
  if (!wants(part)) return { skipped: true };
  log(`bench: ${part}`);
  try {
    return { value: await run() };
  } catch (error) {
    log(`bench: ${part} pending: ${errorText(error)}`);
    return { pending: errorText(error) };
  }
}

/**
 * A table of contenders that ran interleaved call by call; the ratio of `names[0]` to `names[1]`
 * (and of any other contender to `names[1]`) is taken round by round and the median reported, as
 * for the servers. `targetRatio` undefined means the ratio is reported without a target.
 */
function pairSection(title, outcome, names, targetRatio, what, untargeted = 'reported, no target') {
  const lines = [`### ${title}`, ''];
  const targetText = targetRatio === undefined ? untargeted : `≤ ${targetRatio.toFixed(2)}x`;
  if (outcome.skipped) return { lines: [...lines, 'not run (BENCH_ONLY)', ''], targets: [] };
  if (outcome.pending) {
    return {
      lines: [...lines, `pending: ${outcome.pending}`, ''],
      targets: [{ what, figure: 'pending', target: targetText, ok: undefined }],
    };
  }
  const base = outcome.value.find((r) => r.name === names[1]);
  const perRound = (r, field) => r[field].map((x, i) => x / base[field][i]);
  const ratioOf = (r, field) => median(perRound(r, field));
  const ours = outcome.value.find((r) => r.name === names[0]);
  const ratio = ratioOf(ours, 'rounds');
  const ok = targetRatio === undefined ? true : ratio <= targetRatio;
  lines.push(
    `| contender | µs per call (median round) | CPU µs per call, this process | vs ${names[1]}, wall (median of per-round ratios) | vs ${names[1]}, CPU |`,
    '|---|--:|--:|--:|--:|',
    ...outcome.value.map(
      (r) => `| ${r.name} | ${fmt.us(r.usPerCall)} | ${fmt.us(r.cpuUsPerCall)} | ${fmt.ratio(ratioOf(r, 'rounds'))} | ${fmt.ratio(ratioOf(r, 'cpuRounds'))} |`,
    ),
    '',
    `Ratio ${names[0]} / ${names[1]}: **${fmt.ratio(ratio)}**${targetRatio === undefined ? '' : ` (target ${targetText}: ${met(ok)})`}; CPU per call ${fmt.ratio(ratioOf(ours, 'cpuRounds'))}. Per round (wall): ${perRound(ours, 'rounds').map((x) => x.toFixed(3)).join(', ')}.`,
    '',
  );
  return { lines, targets: [{ what, figure: fmt.ratio(ratio), target: targetText, ok: targetRatio === undefined ? undefined : ok }] };
}

// ---------------------------------------------------------------- main

function machine() {
  const cpu = cpus()[0]?.model?.trim() ?? 'unknown CPU';
  return `${cores} cores (nproc), ${cpu}, Node ${process.version}, ${process.platform} ${process.arch}`;
}

const tmp = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const startedAt = new Date();
let servers;
let client;
let msw;
let memory;
let bundle;
try {
  servers = wants('servers') ? await benchServers(tmp) : undefined;
  if (servers) {
    servers.fsync = await runChild([join(HERE, 'lib', 'fsync-probe.mjs'), JSON.stringify({ dir: tmp })], {
      core: SERVER_CORE,
      timeoutMs: 60_000,
    }).catch(() => undefined);
  }
  if (servers) {
    if (QUICK) servers.instructions = { pending: 'not counted in a quick run' };
    else if (!hasValgrind) servers.instructions = { pending: 'valgrind is not installed' };
    else {
      log('bench: server instructions (valgrind, about 6 minutes)');
      const counted = SERVERS.filter((server) => ['raw', 'fastify', 'ours'].includes(server.id));
      const core = canPin && cores >= 2 ? SERVER_CORE : undefined;
      servers.instructions = await countServerInstructions(counted, { token: TOKEN, core })
        .then(async (value) => ({ value, fixed: await countServerInstructions(counted, { token: TOKEN, core, workload: 'fixed' }) }))
        .catch((error) => ({ pending: errorText(error) }));
    }
  }
  client = await attempt('client', benchClient);
  msw = await attempt('msw', benchMsw);
  memory = await attempt('memory', () => benchMemory(tmp));
  bundle = await attempt('bundle', benchBundle);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const out = [];
const targets = [];
out.push(
  '# Benchmark results',
  '',
  `- Date: ${startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
  `- Machine: ${machine()}; ${canPin && cores >= 2 ? `server on core ${SERVER_CORE}, load generator / client on core ${LOAD_CORE} (taskset)` : 'not pinned (taskset or a second core missing)'}`,
  `- Command: \`npm run bench\`${QUICK ? ' with BENCH_QUICK=1 (short runs: indicative only)' : ''}${ONLY ? ` with BENCH_ONLY=${env.BENCH_ONLY}` : ''}${PROFILE ? ' with BENCH_PROFILE=1 (profiler on: slower)' : ''}`,
  '',
);
const body = [];
if (servers) {
  const { table, targets: t, notes, head } = serverRows(servers);
  targets.push(...t);
  body.push(
    '## Servers',
    '',
    `autocannon 8 in its own process, ${plan.connections} connections, pipelining 1 (unique ids: each connection's request buffer is built once and its id digits rewritten before each send, so the load generator stays well below a full core and the servers are the limit), ${plan.warmup} s warm-up then ${plan.duration} s measured, ${plan.rounds} round(s), every server once per round: raw, ours, fastify (reversed every other round, so ours always runs right next to each baseline); then, apart, the same number of rounds of the durable server and a run of ours of its own (the durable / memory ratio's denominator), each durable run followed by \`sync\` and a 2 s pause, so that its log's writeback never falls on a baseline. Each row shows its median round; every ratio (vs raw, vs fastify, durable vs memory) is taken within each round, then as the geometric mean of each two rounds in a row (one in each order, which cancels what a server's place in the order does to it), and the median of those pairs is reported (the per-round ratios are listed below the table). Latency is over every response, measured exactly (not autocannon's whole-millisecond histogram). Peak RSS is the server process's VmHWM after the run. Server CPU µs/req is the server process's CPU time (user + system, from /proc) over the measured window divided by the answers in it: unlike req/s it hardly moves when other tenants take the cores. CPU use is the share of one core each process used in that window; well under 100% for both means the machine, not the server or the load generator, was the limit.`,
    '',
    ...table,
    '',
    '### Head to head',
    '',
    `Two servers on core ${SERVER_CORE} at the same time, each with its own ${plan.connections} connections from one autocannon process (core ${LOAD_CORE}), ${plan.headBlocks} block(s) of a fresh pair: ${plan.warmup} s warm-up, then ${plan.headRounds} rounds of ${plan.headDuration} s, the order in which autocannon starts the two swapped every round. Whatever the machine's other tenants take from the core falls on both servers in the same seconds, so their req/s ratio holds still where the one-at-a-time ratios above swing with the VM (compare the per-round ranges); both stay busy through the window, so each gets half the core and serves what its own work per request allows. The raw server against a second copy of itself is the control: its ratio shows how far the method itself strays. The req/s targets are judged here (ratio per round, geometric mean of each two rounds in a row, median of those pairs); the p99 target on the one-at-a-time rounds, where a server's latency is its own.`,
    '',
    ...head.table,
    '',
    '- fastify cannot keep int64 ids exactly (its schema sees the id after `JSON.parse`), so it accepts `1.00000000000000000001` and confuses ids past 2^53; it also replaces invalid UTF-8 instead of refusing it. The loads use ids below 2^53 so it runs the same 200 path.',
    ...notes,
    ...head.notes,
    ...serverInstructionLines(servers.instructions, targets),
    ...(servers.fsync
      ? [
          `- The durable rows ack each create only once its batch is on disk (group commit: one durable write per batch, one batch in flight). One append + \`fdatasync\` in the temp directory took p50 ${fmt.ms(servers.fsync.p50Ms)} ms, p99 ${fmt.ms(servers.fsync.p99Ms)} ms (${servers.fsync.count} sequential, after the loads). The server process, its fs thread pool included, is pinned to one core, so the kernel's work for each durable write is taken from the core that also answers the requests; with ${plan.connections} connections at most ${plan.connections} creates share one write.`,
        ]
      : []),
    '',
  );
} else {
  body.push('## Servers', '', 'not run (BENCH_ONLY)', '');
}
body.push('## Client and mocks', '');
// The client's target is judged on the instruction count when valgrind is there: on this kind of
// shared VM the timed ratio moved between 0.97x and 1.20x from one run to the next with the same
// build, while the count repeats within about 1.5%.
const counted = client.value?.instructions?.value;
const clientPart = pairSection(
  `Client: ${clientCalls.toLocaleString('en-US')} sequential creates against a trivial node:http server (other core)`,
  client.value ? { value: client.value.contenders } : client,
  ['createPlant', 'raw fetch'],
  counted ? undefined : 1.1,
  counted ? 'client createPlant vs raw fetch, per call, wall time' : 'client createPlant vs raw fetch, per call',
  'reported (≤ 1.10x judged on instructions)',
);
const mswPart = pairSection(
  `Mocks: ${clientCalls.toLocaleString('en-US')} creates (raw fetch) through MSW setupServer`,
  msw,
  ['@plant-store/msw', 'trivial handler'],
  undefined,
  'msw handlers vs trivial handler, per call',
);
targets.push(...clientPart.targets, ...mswPart.targets);
body.push(...clientPart.lines);
if (counted) {
  const [ours, raw, openapiFetch, oursTimed, rawTimed] = ['createPlant', 'raw fetch', 'openapi-fetch', 'createPlant + timeout', 'raw fetch + timeout'].map(
    (name) => counted.find((r) => r.name === name),
  );
  const ratio = ours.perCall / raw.perCall;
  body.push(
    `Instructions per call (valgrind cachegrind, a run of 300 calls subtracted from one of 1,300, each contender in its own process; user space only, so the kernel's share of a request, the same for both, is left out and the ratio is if anything overstated): createPlant ${fmt.int(ours.perCall)}, raw fetch ${fmt.int(raw.perCall)}: **${fmt.ratio(ratio)}** (target ≤ 1.10x: ${met(ratio <= 1.1)}); openapi-fetch alone ${fmt.int(openapiFetch.perCall)} (${fmt.ratio(openapiFetch.perCall / raw.perCall)}). With a 30 s timeout set (a signal handed to fetch, and a timer): createPlant ${fmt.int(oursTimed.perCall)} (${fmt.ratio(oursTimed.perCall / raw.perCall)} of raw fetch), raw fetch + timeout ${fmt.int(rawTimed.perCall)} (${fmt.ratio(rawTimed.perCall / raw.perCall)}): createPlant is ${fmt.ratio(oursTimed.perCall / rawTimed.perCall)} of the hand-written call with the same timeout. Unlike time, this count hardly moves with the machine's other tenants (repeated runs agree within about 1.5%), so the target is judged on it.`,
    '',
  );
  targets.push({ what: 'client createPlant vs raw fetch, instructions per call', figure: fmt.ratio(ratio), target: '≤ 1.10x', ok: ratio <= 1.1 });
} else if (client.value) body.push(`Instructions per call: not counted (${client.value.instructions.pending}); the target is judged on wall time.`, '');
body.push(...mswPart.lines);

body.push('## Memory', '');
if (memory.skipped) body.push('not run (BENCH_ONLY)', '');
else if (memory.pending) {
  body.push(`pending: ${memory.pending}`, '');
  targets.push({ what: 'RSS holding 1M plants', figure: 'pending', target: '≤ 200 MB', ok: undefined });
} else {
  body.push(
    `Memory store: the core app with its memory store, filled by valid creates through \`app.handle\` in one process (a tag on half the plants, unique names), RSS after two full GCs. File store: a log of the same plants written by one process and opened (replayed) by a fresh one, as a restarted \`--data\` server holds them; RSS after two full GCs. Both keep plants in core's \`PlantTable\` (every id as two 32-bit halves in a typed array), so ids near 2^62 cost what ids 1…N cost.`,
    '',
    '| store | plants | ids | RSS before | RSS after fill / open | heap used / total | fill / open time | target | met |',
    '|---|--:|---|--:|--:|--:|--:|---|---|',
  );
  for (const m of memory.value) {
    const mb = (m.rssMiB * 2 ** 20) / 1e6;
    const ok = m.count >= 1_000_000 ? mb <= 200 : undefined;
    const ids = m.ids === 'large' ? 'near 2^62' : '1…N';
    const file = m.store === 'file';
    const time = file ? `open ${m.openSeconds.toFixed(1)} s` : `fill ${m.fillSeconds.toFixed(1)} s (${fmt.int(m.count / m.fillSeconds)} creates/s)`;
    body.push(
      `| ${file ? 'file (reopened)' : 'memory'} | ${m.count.toLocaleString('en-US')} | ${ids} | ${fmt.mib(m.rssBeforeMiB)} MiB | ${fmt.mib(m.rssMiB)} MiB (**${mb.toFixed(0)} MB**) | ${fmt.mib(m.heapUsedMiB)} / ${fmt.mib(m.heapTotalMiB)} MiB | ${time} | ≤ 200 MB | ${met(ok)} |`,
    );
    targets.push({ what: `RSS holding ${m.count.toLocaleString('en-US')} plants, ${file ? 'file store reopened' : 'memory store'}, ids ${ids}`, figure: `${mb.toFixed(0)} MB`, target: '≤ 200 MB', ok });
  }
  body.push('');
}

body.push('## Bundle', '');
if (bundle.skipped) body.push('not run (BENCH_ONLY)', '');
else if (bundle.pending) {
  body.push(`pending: ${bundle.pending}`, '');
  targets.push({ what: '`createPlant` alone, browser, min+gzip', figure: 'pending', target: '≤ 4,096 B', ok: undefined });
} else {
  const b = bundle.value;
  const ok = b.gzip <= 4096;
  body.push(
    '| import | min | min+gzip | measured by | target | met |',
    '|---|--:|--:|---|---|---|',
    `| \`import { createPlant } from '@plant-store/client'\` (browser, ESM) | ${fmt.int(b.min)} B | ${fmt.int(b.gzip)} B | ${b.how} | ≤ 4,096 B min+gzip | ${met(ok)} |`,
    '',
  );
  targets.push({ what: '`createPlant` alone, browser, min+gzip', figure: `${fmt.int(b.gzip)} B`, target: '≤ 4,096 B', ok });
}

out.push(
  '## Targets',
  '',
  '| what | figure | target | met |',
  '|---|--:|---|---|',
  ...targets.map((t) => `| ${t.what} | ${t.figure} | ${t.target} | ${met(t.ok)} |`),
  '',
  ...body,
);
const text = out.join('\n');
process.stdout.write(`${text}\n`);
if (ONLY === undefined && !QUICK && !PROFILE) {
  writeFileSync(join(HERE, 'RESULTS.md'), text + '\n');
  log('bench: wrote bench/RESULTS.md');
} else {
  writeFileSync(join(tmpdir(), 'plant-store-bench-partial.md'), text + '\n');
  log(`bench: partial run, not written to RESULTS.md (see ${join(tmpdir(), 'plant-store-bench-partial.md')})`);
}
