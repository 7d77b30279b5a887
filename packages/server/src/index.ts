// The public surface of @plant-store/server, by name.

// The server
export { startPlantStoreServer } from './plant-store-server.js';
export type {
  PlantStoreOpsOptions,
  PlantStoreServer,
  PlantStoreServerOptions,
  PlantStoreServerTimeouts,
} from './plant-store-server.js';

// A listener for a node:http server of your own (plain node:http, Express, Koa; Fastify: @plant-store/server/fastify)
export { createPlantStoreListener, generateToken } from './create-plant-store-listener.js';
export type { LogSink, PlantStoreListener, PlantStoreListenerOptions } from './create-plant-store-listener.js';

// The core's shape of the `cors` option, so a typed `cors: { origins, maxAge }` needs no other import
export type { CorsOptions } from '@plant-store/core';
