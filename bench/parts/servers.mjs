// Part "servers": the reference server against a hand-written node:http server and fastify under
// autocannon, one at a time (req/s, p99, CPU per request, peak RSS), head to head
// (parts/head-to-head.mjs, where the req/s targets are judged), the durable server beside ours in
// rounds of their own, and each server's instructions per request under valgrind.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runContractChecks } from '../lib/contract-checks.mjs';
import { DURABLE_PAIR, WORKLOADS, serverContenders, serverOptions } from '../lib/contenders.mjs';
import { countServerInstructions } from '../lib/server-instructions.mjs';
import { hasValgrind, procCpuSeconds, procStatusKiB, runChild } from '../lib/proc.mjs';
import { errorDetail, errorText } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { alternated } from '../lib/stats.mjs';
import { runHeadToHead } from './head-to-head.mjs';
import { reportServers } from './servers-report.mjs';

const BENCH = fileURLToPath(new URL('..', import.meta.url));

export const name = 'servers';
export const report = reportServers;

/** One server, one load, one round: a fresh server process, autocannon in its own process. */
async function runOne(server, workload, round, ctx) {
  const { options, plan } = ctx;
  const nodeArgs = [];
  if (options.profile && (server.kind === 'ours' || server.kind === 'raw')) {
    const dir = join(BENCH, 'profiles', `${server.id}-${workload.id}`);
    mkdirSync(dir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', dir);
  }
  const running = await startServer(server.kind, serverOptions(server, ctx), { core: options.serverCore, nodeArgs });
  try {
    let cpuStart = NaN;
    let cpuEnd = NaN;
    let started = 0;
    let ended = 0;
    const load = {
      url: running.url,
      token: options.token,
      workload: workload.id,
      connections: plan.connections,
      duration: plan.duration,
      warmup: plan.warmup,
      // Distinct per round, so a reused id never turns a create into a replay.
      idBase: 1_000_000_000 * (round + 1),
    };
    const result = await runChild([join(BENCH, 'lib', 'load.mjs'), JSON.stringify(load)], {
      core: options.loadCore,
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
    });
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

/** After a durable run: its log flushed by the kernel and a pause, before the next server starts. */
async function settle() {
  spawnSync('sync');
  await new Promise((resolve) => setTimeout(resolve, 2000));
}

export async function run(ctx) {
  const { options, plan, log } = ctx;
  const servers = serverContenders(options.candidate);
  const available = [];
  const pending = new Map();
  const checks = new Map();
  // A few contract cases first, so a baseline that is fast because it skips work shows in the table.
  for (const server of servers) {
    try {
      const running = await startServer(server.kind, serverOptions(server, ctx), { core: options.serverCore });
      try {
        checks.set(server.id, await runContractChecks(running.url, options.token));
      } finally {
        await running.stop();
      }
      available.push(server);
    } catch (error) {
      pending.set(server.id, errorText(error));
      log(`bench: ${server.id} pending: ${errorDetail(error)}`);
    }
  }

  // runs: `server/workload` → one result per round (undefined where that round failed).
  const runs = new Map();
  const record = async (server, key, workload, round) => {
    log(`bench: round ${round + 1}/${plan.rounds} ${key}`);
    if (!runs.has(key)) runs.set(key, new Array(plan.rounds).fill(undefined));
    try {
      runs.get(key)[round] = await runOne(server, workload, round, ctx);
    } catch (error) {
      pending.set(server.id, errorText(error));
      log(`bench: ${key} failed: ${errorDetail(error)}`);
    }
  };
  // The in-memory servers first, reversed every other round, so that drift on a shared machine does
  // not always land on the same one, and ours always runs right next to each baseline.
  const memory = available.filter((server) => !server.durable);
  for (let round = 0; round < plan.rounds; round++) {
    for (const workload of WORKLOADS) {
      for (const server of alternated(memory, round))
        await record(server, `${server.id}/${workload.id}`, workload, round);
    }
  }
  const head = await runHeadToHead(memory, pending, ctx);
  // Then the durable rows, each round beside a run of ours of its own (the durable / memory ratio's
  // denominator). Apart, because a durable run may leave the kernel writing its log back for a
  // while, which among the memory rounds would land on whichever baseline ran next.
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

  const fsync = await runChild([join(BENCH, 'lib', 'fsync-probe.mjs'), JSON.stringify({ dir: ctx.tmp })], {
    core: options.serverCore,
    timeoutMs: 60_000,
  }).catch(() => undefined);

  let instructions;
  if (options.quick) instructions = { pending: 'not counted in a quick run' };
  else if (!hasValgrind) instructions = { pending: 'valgrind is not installed' };
  else {
    log('bench: server instructions (valgrind, about 6 minutes)');
    const counted = servers.filter((server) => ['raw', 'fastify', 'ours'].includes(server.id));
    const how = { token: options.token, core: options.serverCore };
    instructions = await countServerInstructions(counted, how)
      .then(async (value) => ({ value, fixed: await countServerInstructions(counted, { ...how, workload: 'fixed' }) }))
      .catch((error) => ({ pending: errorText(error) }));
  }
  return { servers, runs, head, pending, checks, fsync, instructions };
}
