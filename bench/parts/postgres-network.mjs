// The postgres part's network rows: the same servers, load and database as its other rows, with a
// TCP proxy between the servers and PostgreSQL that adds a delay each way (lib/network.mjs), at
// each round trip of the plan and 64 connections. Ours (group commit) against the two servers that
// send one statement per request, where each statement waits a round trip and the pool of 10 bounds
// the statements at once; `BENCH_PG_BATCHES` adds rows of ours with `--database-batches <n>`.
import { postgresContenders } from '../lib/contenders.mjs';
import { measureRoundTrip, startNetwork } from '../lib/network.mjs';
import { runOne } from '../lib/postgres-run.mjs';
import { errorDetail, errorText } from '../lib/report.mjs';
import { alternated } from '../lib/stats.mjs';

/** Connections of the load in the network rows. */
export const NETWORK_CONNECTIONS = 64;

/** The key of a network run: the contender and the round trip asked for. */
export const networkKey = (id, roundTripMs) => `${id}/rtt-${roundTripMs}`;

/**
 * The network rows' contenders, in their order in a round: the statement-per-request servers around
 * ours, and ours with each bound on batches in flight of `batches` right after ours.
 * @param {number[]} batches
 */
export function networkContenders(batches = []) {
  const [raw, ours, fastify] = ['raw-pg', 'ours-pg', 'fastify-pg'].map((id) =>
    postgresContenders().find((contender) => contender.id === id),
  );
  return [
    raw,
    ours,
    ...batches.map((n) => ({
      id: `ours-pg-batches-${n}`,
      label: `@plant-store/server --database --database-batches ${n}`,
      kind: 'cli',
      database: true,
      args: ['--database-batches', String(n)],
    })),
    fastify,
  ];
}

/**
 * Every round: for each round trip a fresh proxy, its round trip measured idle, then every contender
 * in an order reversed every other round.
 * @returns {Promise<{ runs: Map<string, object[]>, roundTrips: Map<number, number[]> }>}
 */
export async function runNetwork(ctx, db, available, pending) {
  const { plan, options, log } = ctx;
  const runs = new Map();
  const roundTrips = new Map(plan.pgRoundTrips.map((ms) => [ms, []]));
  for (let round = 0; round < plan.pgRounds; round++) {
    for (const roundTripMs of plan.pgRoundTrips) {
      let network;
      try {
        // On the database's core: the network stands between the two machines.
        network = await startNetwork(db.url, { roundTripMs, core: options.loadCore });
        roundTrips.get(roundTripMs).push(await measureRoundTrip(network.url));
        for (const contender of alternated(available, round)) {
          const key = networkKey(contender.id, roundTripMs);
          log(`bench: postgres round ${round + 1}/${plan.pgRounds} ${key}`);
          if (!runs.has(key)) runs.set(key, new Array(plan.pgRounds).fill(undefined));
          try {
            runs.get(key)[round] = await runOne(
              contender,
              NETWORK_CONNECTIONS,
              round,
              ctx,
              { ...db, url: network.url },
              network.pid,
            );
          } catch (error) {
            pending.set(key, errorText(error));
            log(`bench: postgres ${key} failed: ${errorDetail(error)}\n${db.log()}`);
          }
        }
      } catch (error) {
        for (const contender of available) pending.set(networkKey(contender.id, roundTripMs), errorText(error));
        log(`bench: postgres network of ${roundTripMs} ms failed: ${errorDetail(error)}`);
      } finally {
        await network?.stop();
      }
    }
  }
  return { runs, roundTrips };
}
