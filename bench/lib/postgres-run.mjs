// One run of the postgres part (parts/postgres.mjs): a contender at one number of connections on an
// empty table, with the CPU of the server (or pgbench), of the database and of the whole machine
// over the measured window, and the creates per committed transaction. In the network rows `db.url`
// leads through the proxy (lib/network.mjs), whose CPU is counted apart.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLE, runPgbench } from './postgres.mjs';
import { cores, procCpuSeconds, runChild } from './proc.mjs';
import { scrapeEverySecond } from './scrape.mjs';
import { startServer } from './serve.mjs';

const LOAD = fileURLToPath(new URL('./load.mjs', import.meta.url));

/** The scrapes of every `--ops-port` contender's /metrics in this process (lib/scrape.mjs). */
export const scrapes = { ok: 0, failed: 0 };

/** What lib/serve.mjs is given for a contender: the run's token and, on PostgreSQL, the table. */
export const serveOptions = (contender, { options }, db) => ({
  tokens: [options.token],
  ...(contender.args ? { args: contender.args } : {}),
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

/** CPU seconds of the server (or pgbench), the database, the proxy and the whole machine, at one moment. */
function sample(db, pid, proxyPid) {
  return {
    at: performance.now(),
    server: procCpuSeconds(pid),
    db: db.cpuSeconds(),
    proxy: proxyPid === undefined ? 0 : procCpuSeconds(proxyPid),
    machine: machineCpu(),
  };
}

/**
 * One contender, one number of connections, one round: an empty table, a fresh server, one load.
 * `proxyPid`: the network's process, in the network rows.
 */
export async function runOne(contender, connections, round, ctx, db, proxyPid) {
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
        window[edge] = sample(db, serverPid, proxyPid);
      },
    });
    // pgbench both sends the load and is the application: its CPU goes in the loader's column.
    loaderSeconds = window.end.server - window.start.server;
    result.statusCodes = { committed: result.total };
    result.p50Ms = percentile(result.latencies, 50);
    result.p99Ms = percentile(result.latencies, 99);
    result.latencies = undefined;
  } else {
    const logPath = contender.log ? join(tmp, `${contender.id}-${connections}-${round}.log`) : undefined;
    const running = await startServer(contender.kind, serveOptions(contender, ctx, db), {
      core: options.serverCore,
      stderrPath: logPath,
    });
    serverPid = running.pid;
    const stopScraping =
      running.opsUrl && scrapeEverySecond([`${running.opsUrl}/metrics`], scrapes, { core: options.loadCore });
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
          if (line.startsWith('PHASE measure')) window.start = sample(db, serverPid, proxyPid);
          else if (line.startsWith('RESULT')) window.end = sample(db, serverPid, proxyPid);
        },
      });
    } finally {
      await stopScraping?.();
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
  const proxySeconds = window.end.proxy - window.start.proxy;
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
    proxyCpu: proxySeconds / seconds,
    // The share of all cores that processes outside this run used in the window, and the steal.
    othersCpu: (busy - serverSeconds - dbSeconds - loaderSeconds - proxySeconds) / seconds / cores,
    steal: (window.end.machine.steal - window.start.machine.steal) / seconds / cores,
  };
}

function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;
}
