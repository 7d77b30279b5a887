// The network between the servers and PostgreSQL in the postgres part's network rows: the tests' TCP
// proxy (test/support/tcp-proxy.mjs) in a process of its own, pinned to the database's core, adding
// a delay each way; and the round trip a client then sees, measured with `SELECT 1`.
//
// As a child's entry, `node network.mjs '{"target":{…},"delayMs":…}'` starts the proxy, prints
// `READY {"port":…}` and closes on SIGTERM.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTcpProxy } from '../../test/support/tcp-proxy.mjs';
import { exitWithin, spawnNode, waitForLine } from './proc.mjs';

const SELF = fileURLToPath(import.meta.url);

/**
 * Starts a proxy in front of `url`'s database that adds `roundTripMs / 2` each way, pinned to
 * `core`; resolves to the URL through it, its pid (for its CPU) and `stop()`.
 * @param {string} url the database's URL (127.0.0.1)
 * @param {{ roundTripMs: number, core?: number }} options
 */
export async function startNetwork(url, { roundTripMs, core }) {
  const direct = new URL(url);
  const target = { host: direct.hostname, port: Number(direct.port) };
  const proc = spawnNode([SELF, JSON.stringify({ target, delayMs: roundTripMs / 2 })], { core });
  const { port } = await waitForLine(proc, 'READY', 30_000);
  const through = new URL(url);
  through.port = String(port);
  return {
    url: through.href,
    pid: proc.child.pid,
    async stop() {
      proc.child.kill('SIGTERM');
      await exitWithin(proc, 5_000);
    },
  };
}

/**
 * The median round trip of `SELECT 1` on one connection to `url`, in ms, with nothing else running:
 * what a statement waits at least (the proxy's timers add to the delay asked for).
 */
export async function measureRoundTrip(url, samples = 40) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const times = [];
    for (let i = 0; i < samples + 5; i++) {
      const started = performance.now();
      await client.query('SELECT 1');
      // The first few open the connection's caches.
      if (i >= 5) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return times[times.length >> 1];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function main() {
  const proxy = await startTcpProxy(JSON.parse(process.argv[2]));
  process.stdout.write(`READY ${JSON.stringify({ port: proxy.port })}\n`);
  const stop = async () => {
    setTimeout(() => process.exit(0), 2_000).unref();
    await proxy.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] === SELF) await main();
