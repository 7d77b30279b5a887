// createPlantStoreListener, the Plant Store API as a node:http listener for a server of your own, and
// its types.
import type { MemoryStore, PlantStore } from '@plant-store/core';
import { createListenerParts, resolveLogger } from './internal/listener-parts.js';
import type { PlantStoreListener, PlantStoreListenerOptions } from './internal/listener-types.js';

export { generateToken } from './internal/listener-parts.js';
export type { PlantStoreListener, PlantStoreListenerOptions } from './internal/listener-types.js';
export type { LogSink } from './internal/log-sink.js';

/**
 * Creates a node:http `(req, res)` listener for the Plant Store API, to mount in a server of your own:
 * `http.createServer(listener)`, a route of a plain node:http app, Express (`app.use('/plant-api',
 * listener)`), Koa (`ctx.respond = false`), or Fastify through `@plant-store/server/fastify`. Under a
 * mount (Express strips the mount path from `url`), it serves wherever it is mounted. A body that a
 * framework read before it is taken from what the framework kept (`express.raw()`, `express.text()`,
 * a Buffer `rawBody`); with nothing kept, the answer is a 500 whose message says to mount the listener
 * before body parsers.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createPlantStoreListener } from '@plant-store/server';
 *
 * const plants = createPlantStoreListener({ basePath: '/plant-api', tokens: ['secret'] });
 * createServer((req, res) => {
 *   if (req.url?.startsWith('/plant-api/')) return plants(req, res);
 *   res.end('my own app');
 * }).listen(3000);
 * ```
 */
export function createPlantStoreListener<S extends PlantStore = MemoryStore>(
  options: PlantStoreListenerOptions<S> = {},
): PlantStoreListener<S> {
  const { app, tokens, listener } = createListenerParts(options, resolveLogger(options));
  return Object.assign(listener, { app, tokens, store: app.store });
}
