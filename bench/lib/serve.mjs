// The one way the bench starts a server under test: `startServer(kind, options)` runs it in a
// process of its own (pinned to its own core, so that its CPU time and peak RSS are its own, and
// under valgrind when its instructions are counted) and resolves once it listens.
//
// Kinds:
//   raw, fastify   the baselines (bench/baselines/)
//   raw-pg, fastify-pg
//                  the same baselines on a PostgreSQL table (`database`, `table`): one statement per
//                  request (bench/baselines/postgres-table.mjs)
//   ours           @plant-store/server with its memory store; with `data` (a path), with the file
//                  store of @plant-store/store-file opened there: fsync before every ack; with
//                  `database` (and `table`, `poolSize`), with @plant-store/store-postgres's store
//   trivial        a server that answers every request with the same Plant (the client part's)
//   module         `start(options)` of the module at `options.module`, resolving { url, close,
//                  store? }: a candidate build of the server, to A/B a change against the others
//   cli            the real `plant-store-server` command (packages/server/dist/cli.js), with
//                  `--data` when `data` is given (what the soak drives), `--database` and
//                  `--database-table` when `database` and `table` are (the postgres part), and
//                  any further flags in `args` (`--log`, `--ops-port 0`: the production part;
//                  `--otel`: the tracing part)
//
// Every kind but `cli` runs through this file as the child's entry: `node serve.mjs <kind> <json>`
// prints `READY {"url":…}`, closes on SIGTERM or SIGINT and exits 0 (which is also what lets
// `--cpu-prof` write its profile and valgrind its count), and on SIGUSR2 prints the stats of its
// store, where the store keeps them, as `STATS {…}` on stderr.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { exitWithin, spawnNode, waitForLine } from './proc.mjs';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

/**
 * Starts a server under test in its own process.
 * @param {'raw' | 'fastify' | 'raw-pg' | 'fastify-pg' | 'ours' | 'trivial' | 'module' | 'cli'} kind
 * @param {{ tokens?: string[], data?: string, module?: string, database?: string, table?: string,
 *   poolSize?: number, args?: string[] }} options
 * @param {{ core?: number, nodeArgs?: string[], valgrind?: boolean, stderrPath?: string,
 *   env?: Record<string, string> }} [how]
 *   `stderrPath`: the child's stderr to that file (its log) rather than kept in memory; `env`:
 *   variables added to the bench's own for the child (the `OTEL_*` of a traced server)
 * @returns {Promise<{ url: string, opsUrl?: string, pid: number, stderr(): string, exited: Promise<object>,
 *   stop(graceMs?: number): Promise<{ code: number | null, signal: string | null, killed: boolean }> }>}
 */
export async function startServer(
  kind,
  options = {},
  { core = 0, nodeArgs = [], valgrind = false, stderrPath, env } = {},
) {
  const args =
    kind === 'cli'
      ? [
          CLI,
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          ...(options.tokens ?? []).flatMap((token) => ['--token', token]),
          ...(options.data ? ['--data', options.data] : []),
          ...(options.database ? ['--database', options.database] : []),
          ...(options.table ? ['--database-table', options.table] : []),
          ...(options.args ?? []),
        ]
      : [SELF, kind, JSON.stringify(options)];
  const proc = spawnNode(args, {
    core,
    nodeArgs,
    valgrind,
    stderrPath,
    ...(env !== undefined && { env: { ...process.env, ...env } }),
  });
  // The CLI's banner names its operations listener on the line after `listening on`.
  let opsUrl;
  proc.lines.on('line', (line) => {
    opsUrl ??= /^Operations: (http:\/\/\S+)\/livez/.exec(line)?.[1];
  });
  // Node under valgrind starts some fifty times slower.
  const timeoutMs = valgrind ? 300_000 : 30_000;
  const url =
    kind === 'cli'
      ? (await waitForLine(proc, /listening on (http:\/\/\S+)/, timeoutMs))[1]
      : (await waitForLine(proc, 'READY', timeoutMs)).url;
  return {
    url,
    // The banner is one write: its lines are all read by now.
    opsUrl,
    pid: proc.child.pid,
    stderr: proc.stderr,
    exited: proc.exited,
    async stop(graceMs = valgrind ? 120_000 : 10_000) {
      proc.child.kill('SIGTERM');
      return exitWithin(proc, graceMs);
    },
  };
}

// ---------------------------------------------------------------- the child's side

async function start(kind, options) {
  switch (kind) {
    case 'raw': {
      const { startRawNodeServer } = await import('../baselines/raw-node.mjs');
      return startRawNodeServer(options);
    }
    case 'fastify': {
      const { startFastifyServer } = await import('../baselines/fastify.mjs');
      return startFastifyServer(options);
    }
    case 'raw-pg':
    case 'fastify-pg': {
      const { startOnPlantTable } = await import('../baselines/postgres-table.mjs');
      const baseline =
        kind === 'raw-pg'
          ? (await import('../baselines/raw-node.mjs')).startRawNodeServer
          : (await import('../baselines/fastify.mjs')).startFastifyServer;
      return startOnPlantTable(baseline, options);
    }
    case 'ours':
      return startOurs(options);
    case 'trivial': {
      const { startTrivialServer } = await import('./trivial-server.mjs');
      return startTrivialServer(options);
    }
    case 'module': {
      const { start: startModule } = await import(pathToFileURL(options.module).href);
      return startModule(options);
    }
    default:
      throw new Error(`unknown server kind ${kind}`);
  }
}

async function startOurs({ data, database, table, poolSize, ...options }) {
  const { startPlantStoreServer } = await import('@plant-store/server');
  if (data === undefined && database === undefined) return startPlantStoreServer(options);
  // Imported only here, so that the memory rows do not carry a store's modules.
  let store;
  if (database !== undefined) {
    const { createPostgresStore } = await import('@plant-store/store-postgres');
    store = await createPostgresStore({ connectionString: database, table, poolSize });
  } else {
    const { openFileStore } = await import('@plant-store/store-file');
    store = await openFileStore({ path: data });
  }
  let server;
  try {
    server = await startPlantStoreServer({ ...options, store });
  } catch (error) {
    await store.close();
    throw error;
  }
  // The server does not close a store it was handed: its opener does, after the server.
  return {
    url: server.url,
    store,
    async close() {
      await server.close();
      await store.close();
    },
  };
}

async function main() {
  const [kind, json = '{}'] = process.argv.slice(2);
  const server = await start(kind, { port: 0, host: '127.0.0.1', ...JSON.parse(json) });
  process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);
  process.on('SIGUSR2', () => {
    const stats = typeof server.store?.stats === 'function' ? server.store.stats() : {};
    process.stderr.write(`STATS ${JSON.stringify(stats)}\n`);
  });
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    // A server that does not close in time must still let the bench go on.
    setTimeout(() => process.exit(0), 5_000).unref();
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] === SELF) await main();
