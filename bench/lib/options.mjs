// What one run of the bench measures and for how long, read once from the command line and the
// BENCH_* variables (bench/README.md lists them). Every part gets the same plan from here.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

/** The parts, in the order a run measures them. */
export const PARTS = ['servers', 'postgres', 'ops', 'production', 'tracing', 'client', 'msw', 'memory', 'bundle'];

export const USAGE = `Usage: npm run bench [-- --only <part,…>]
Parts: ${PARTS.join(', ')}. Environment: BENCH_ONLY=<part,…>, BENCH_QUICK=1 (short runs),
BENCH_PROFILE=1, BENCH_CANDIDATE=/abs/module.mjs, BENCH_ROUNDS, BENCH_DURATION, BENCH_CONNECTIONS,
BENCH_HEAD_BLOCKS, BENCH_PG_POOL_SIZES, BENCH_PG_BATCHES, BENCH_PG_NETWORK=only (see bench/README.md).
Only a full run with the default plan writes bench/README.md.
`;

/** Thrown for a flag or a part name the bench does not know; the entry prints it with the usage. */
export class BenchUsageError extends Error {
  name = 'BenchUsageError';
}

/**
 * The run's options: which parts, how long, and whether its figures may replace the results in
 * bench/README.md (only a full run with the default plan may: a partial or shortened run would put
 * figures of another method on the page).
 */
export function readOptions(argv = process.argv.slice(2), env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { only: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    throw new BenchUsageError(error.message);
  }
  // The flag beats the variable, as a flag beats its variable in the server's CLI.
  const onlyText = values.only?.join(',') ?? env.BENCH_ONLY;
  const only =
    onlyText === undefined || onlyText === ''
      ? undefined
      : new Set(
          onlyText
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean),
        );
  for (const part of only ?? []) {
    if (!PARTS.includes(part))
      throw new BenchUsageError(`no part named ${JSON.stringify(part)}: the parts are ${PARTS.join(', ')}`);
  }
  const quick = env.BENCH_QUICK === '1';
  const profile = env.BENCH_PROFILE === '1';
  const candidate = env.BENCH_CANDIDATE || undefined;
  const overrides = [
    'BENCH_ROUNDS',
    'BENCH_DURATION',
    'BENCH_CONNECTIONS',
    'BENCH_HEAD_BLOCKS',
    'BENCH_PG_POOL_SIZES',
    'BENCH_PG_BATCHES',
    'BENCH_PG_NETWORK',
  ].filter((name) => env[name] !== undefined);
  const number = (name, fallback) => {
    if (env[name] === undefined) return fallback;
    const n = Number(env[name]);
    if (!Number.isInteger(n) || n <= 0)
      throw new BenchUsageError(`${name} must be a positive whole number, not ${JSON.stringify(env[name])}`);
    return n;
  };
  if (env.BENCH_PG_NETWORK !== undefined && env.BENCH_PG_NETWORK !== 'only')
    throw new BenchUsageError(`BENCH_PG_NETWORK can only be "only", not ${JSON.stringify(env.BENCH_PG_NETWORK)}`);
  const numbers = (name) =>
    (env[name] ?? '')
      .split(',')
      .filter((item) => item.trim() !== '')
      .map((item) => {
        const n = Number(item);
        if (!Number.isInteger(n) || n <= 0)
          throw new BenchUsageError(`${name} must list positive whole numbers, not ${JSON.stringify(item)}`);
        return n;
      });
  const plan = {
    connections: number('BENCH_CONNECTIONS', 16),
    warmup: quick ? 1 : 2,
    duration: number('BENCH_DURATION', quick ? 2 : 4),
    // Rounds of the servers one at a time. Even, so that each order of the servers (see
    // `alternated` in stats.mjs) runs as often as the other.
    rounds: number('BENCH_ROUNDS', quick ? 1 : 6),
    // Head to head: blocks of a fresh pair of servers, each with an even number of rounds, the two
    // servers' start order swapped every round.
    headBlocks: number('BENCH_HEAD_BLOCKS', quick ? 1 : 8),
    headRounds: 2,
    headDuration: quick ? 1 : 2,
    // Few long rounds: a short round of calls moves a long way on one stall of a shared VM.
    clientCalls: quick ? 600 : 6000,
    clientRounds: 10,
    memoryCount: quick ? 100_000 : 1_000_000,
    // The postgres part: every contender once per round at each number of connections.
    pgRounds: quick ? 1 : 6,
    pgConnections: [16, 64],
    pgDuration: quick ? 2 : 4,
    // Extra rows of ours on PostgreSQL with other pool sizes (the store's bound on statements in
    // flight), started in code since the CLI keeps the default.
    pgPoolSizes: numbers('BENCH_PG_POOL_SIZES'),
    // The network rows: round trips the proxy adds between the servers and PostgreSQL, ms.
    pgRoundTrips: [0.5, 2],
    // Extra network rows of ours with `--database-batches <n>`.
    pgBatches: numbers('BENCH_PG_BATCHES'),
    // `only`: the network rows alone, to try them.
    pgNetworkOnly: env.BENCH_PG_NETWORK === 'only',
  };
  return {
    help: values.help === true,
    only,
    quick,
    profile,
    candidate,
    overrides,
    plan,
    full: only === undefined && !quick && !profile && candidate === undefined && overrides.length === 0,
    // A fresh token per run: nothing that listens on 127.0.0.1 meanwhile gets a known one.
    token: `bench-${randomBytes(12).toString('hex')}`,
    // The server (and the processes whose CPU is the figure) on one core, the load generator or
    // the client on the other.
    serverCore: 0,
    loadCore: 1,
  };
}

/** Whether `part` runs in this run. */
export const wants = (options, part) => options.only === undefined || options.only.has(part);
