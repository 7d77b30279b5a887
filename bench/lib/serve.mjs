// Child-process entry that starts one server under test and reports its URL, so the server runs
// in its own process (pinned to its own core) and its peak RSS is its own. Usage:
//   node serve.mjs <raw|fastify|ours|trivial|module> '<json options>'
// `module` imports `options.module` (a file path) and calls its `start(options)`: a way to A/B a
// candidate change of the server against the others without touching the packages.
// Prints one line `READY {"url":…}` on stdout; SIGTERM/SIGINT close it and exit 0 (which is also
// what lets `--cpu-prof` write its profile).
const [kind, json = '{}'] = process.argv.slice(2);
const options = { port: 0, host: '127.0.0.1', ...JSON.parse(json) };

async function start() {
  switch (kind) {
    case 'raw': {
      const { startRawNodeServer } = await import('../baselines/raw-node.mjs');
      return startRawNodeServer(options);
    }
    case 'fastify': {
      const { startFastifyServer } = await import('../baselines/fastify.mjs');
      return startFastifyServer(options);
    }
    case 'ours': {
      const { startPlantStoreServer } = await import('@plant-store/server');
      return startPlantStoreServer(options);
    }
    case 'trivial': {
      const { startTrivialServer } = await import('./trivial-server.mjs');
      return startTrivialServer(options);
    }
    case 'module': {
      const { pathToFileURL } = await import('node:url');
      const { start: startModule } = await import(pathToFileURL(options.module).href);
      return startModule(options);
    }
    default:
      throw new Error(`unknown server kind ${kind}`);
  }
}

const server = await start();
process.stdout.write(`READY ${JSON.stringify({ url: server.url })}\n`);

let closing = false;
async function stop() {
  if (closing) return;
  closing = true;
  // A server that does not close in time still has to let the bench go on.
  setTimeout(() => process.exit(0), 5_000).unref();
  await server.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
