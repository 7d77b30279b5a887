// startPlantStoreServer, the reference server for programs and tests, and its types.
import type { MemoryStore, PlantStore } from '@plant-store/core';
import { assembleServer } from './internal/assemble.js';
import type { PlantStoreServer, PlantStoreServerOptions } from './internal/server-types.js';

export type {
  PlantStoreOpsOptions,
  PlantStoreServer,
  PlantStoreServerOptions,
  PlantStoreServerTimeouts,
} from './internal/server-types.js';

/**
 * Starts the Plant Store reference server on node:http and resolves once it listens.
 *
 * @example
 * ```ts
 * const server = await startPlantStoreServer({ port: 0, tokens: ['secret'] });
 * await fetch(`${server.url}/plants`, {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
 *   body: JSON.stringify({ id: 1, name: 'Fern' }),
 * });
 * await server.close();
 * ```
 */
export async function startPlantStoreServer<S extends PlantStore = MemoryStore>(
  options: PlantStoreServerOptions<S> = {},
): Promise<PlantStoreServer<S>> {
  return (await assembleServer({ options })).server;
}
