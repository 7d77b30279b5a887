// Server module for durable-ab.mjs (loaded by bench/lib/serve.mjs as `module`): starts
// @plant-store/server from `options.dist` (a built index.js; default: the workspace's package), and
// on SIGUSR2 prints its store's stats() to stderr as `STATS {…}`, so that the A/B script can count
// records and writes over the measured phase only.
import { pathToFileURL } from 'node:url';

export async function start(options) {
  const { dist, module: _module, ...rest } = options;
  const { startPlantStoreServer } = await import(dist ? pathToFileURL(dist).href : '@plant-store/server');
  const server = await startPlantStoreServer(rest);
  process.on('SIGUSR2', () => {
    const stats = typeof server.store.stats === 'function' ? server.store.stats() : {};
    process.stderr.write(`STATS ${JSON.stringify(stats)}\n`);
  });
  return server;
}
