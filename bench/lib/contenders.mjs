// Who the servers part measures, on which loads, and which pairs it runs head to head.
import { join } from 'node:path';

/**
 * The servers, in their order in a round: ours sits between raw and fastify, so that both of its
 * one-at-a-time ratios are taken between runs that were back to back. `kind` and `options` are
 * what lib/serve.mjs starts; `durable` rows run apart (see parts/servers.mjs).
 * @param {string | undefined} candidate a module exporting `start(options)`, measured beside ours
 */
export function serverContenders(candidate) {
  return [
    { id: 'raw', label: 'raw node:http (bench/baselines/raw-node.mjs)', kind: 'raw' },
    { id: 'ours', label: '@plant-store/server (memory)', kind: 'ours' },
    { id: 'fastify', label: 'fastify 5 + route JSON schema', kind: 'fastify' },
    {
      id: 'durable',
      label: '@plant-store/server + @plant-store/store-file (fsync per ack)',
      kind: 'ours',
      durable: true,
    },
    ...(candidate
      ? [{ id: 'candidate', label: `candidate \`${candidate.split('/').pop()}\``, kind: 'module', module: candidate }]
      : []),
  ];
}

let logs = 0;
/** What lib/serve.mjs is given for `server`: the run's token, and a fresh log for a durable row. */
export function serverOptions(server, { options, tmp }) {
  return {
    tokens: [options.token],
    ...(server.module ? { module: server.module } : {}),
    ...(server.durable ? { data: join(tmp, `plants-${++logs}.log`) } : {}),
  };
}

/** The key of the runs of ours that the durable rows are paired with, apart from the row's own. */
export const DURABLE_PAIR = 'ours-beside-durable';

/**
 * Head-to-head pairs, a / b. The control runs the raw server against a second copy of itself: its
 * ratio should be 1.00x, and how far its rounds stray shows the method's own noise.
 */
export function headToHeadPairs(candidate) {
  return [
    { a: 'ours', b: 'raw' },
    { a: 'ours', b: 'fastify' },
    { a: 'raw', b: 'raw', control: true },
    ...(candidate ? [{ a: 'candidate', b: 'ours' }] : []),
  ];
}

/** The key of one head-to-head pair on one load. */
export const headKey = (pair, workload) => `${pair.a}~${pair.b}/${workload.id}`;

/**
 * The two loads (bench/lib/load.mjs): every request a new plant (the 200 create path), and one id
 * with the same body and a different tag in turn (replay 200, conflict 40003). `expect` judges the
 * statuses a run saw.
 */
export const WORKLOADS = [
  { id: 'unique', label: 'unique ids (200 create)', expect: (codes) => only(codes, ['200']) },
  {
    id: 'fixed',
    label: 'fixed id (replay 200 / 40003)',
    expect: (codes) => only(codes, ['200', '400']) && balanced(codes),
  },
];

function only(codes, allowed) {
  return Object.keys(codes).length > 0 && Object.keys(codes).every((code) => allowed.includes(code));
}

function balanced(codes) {
  const a = codes['200'] ?? 0;
  const b = codes['400'] ?? 0;
  return Math.abs(a - b) <= Math.max(2, 0.02 * (a + b));
}

/**
 * The postgres part's contenders, in their order in a round: ours on PostgreSQL bare and as an
 * operator runs it (logs and metrics on) between the two servers that send one statement per
 * request, then ours in memory and pgbench. All but pgbench are
 * what lib/serve.mjs starts, on the bench's one database and table (`database` set: the part passes
 * both). `poolSizes` (BENCH_PG_POOL_SIZES) adds a row of ours per size, right after ours: the store
 * opened in code with that `poolSize`, its bound on statements in flight.
 * @param {number[]} poolSizes
 */
export function postgresContenders(poolSizes = []) {
  return [
    {
      id: 'raw-pg',
      label: 'node:http + pg, a statement per request (bench/baselines/raw-node.mjs on postgres-table.mjs)',
      kind: 'raw-pg',
      database: true,
    },
    { id: 'ours-pg', label: '@plant-store/server --database (group commit)', kind: 'cli', database: true },
    {
      id: 'ours-pg-production',
      label: '@plant-store/server --database --log --ops-port (logs to a file, /metrics scraped every second)',
      kind: 'cli',
      database: true,
      args: ['--log', '--ops-port', '0'],
      log: true,
    },
    ...poolSizes.map((poolSize) => ({
      id: `ours-pg-pool-${poolSize}`,
      label: `@plant-store/server on createPostgresStore({ poolSize: ${poolSize} })`,
      kind: 'ours',
      database: true,
      poolSize,
    })),
    {
      id: 'fastify-pg',
      label: 'fastify 5 + pg, a statement per request (bench/baselines/fastify.mjs on postgres-table.mjs)',
      kind: 'fastify-pg',
      database: true,
    },
    { id: 'ours-memory', label: '@plant-store/server (memory)', kind: 'cli' },
    { id: 'pgbench', label: 'pgbench: the single-row insert, one per transaction', kind: 'pgbench' },
  ];
}
