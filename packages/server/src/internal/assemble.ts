// The reference server in one pass, for `startPlantStoreServer`, the CLI and each worker of `--workers`
// alike: the options are checked, then come the logger, the store, the listener (the core app and its
// metrics), the operations port and the API's node:http server; both listen, the store's health is
// checked once, and the running server is handed back.
import type { Server } from 'node:http';
import { DEFAULT_HOST, DEFAULT_PORT, type PlantStore } from '@plant-store/core';
import { createListenerParts, type ListenerParts, resolveLogger } from './listener-parts.js';
import type { Metrics } from './metrics.js';
import { baseUrl, createNodeServer, drain, listen, resolveTimeouts } from './node-server.js';
import { checkPort } from './option-checks.js';
import { createOpsServer, Readiness } from './ops.js';
import type { PlantStoreServer, PlantStoreServerOptions } from './server-types.js';
import { openTokenFile, reloadTokenFile } from './token-reload.js';

/** What a cluster worker adds: its number on every log line, and what the primary reads of it. */
export interface WorkerExtras {
  readonly worker?: number;
  /** Called with the metrics, made even without an operations listener (the primary serves them). */
  readonly metrics?: (metrics: Metrics) => void;
  /** Called with the process's readiness, for the primary's /readyz. */
  readonly readiness?: (readiness: Readiness) => void;
}

/** A store the command line chose (`--data`, `--database`), as the CLI opened it. */
export interface ChosenStore<S extends PlantStore> {
  /** None: the default memory store. */
  readonly store?: S;
  /** The banner's line about it. */
  readonly banner?: string;
}

/** What a server is assembled from. */
export interface Assembly<S extends PlantStore> {
  readonly options: PlantStoreServerOptions<S>;
  /** Opens the CLI's store, after the logger, when `options.store` is not given; the server owns it. */
  readonly openStore?: () => Promise<ChosenStore<S>>;
  readonly worker?: WorkerExtras;
}

/** A running server, and the banner's line about the store the CLI chose. */
export interface AssembledServer<S extends PlantStore> {
  readonly server: PlantStoreServer<S>;
  readonly storeBanner?: string;
}

/**
 * Builds and starts a server. A store given in `options.store` stays its caller's; one opened by
 * `openStore`, or the core's default memory store, is the server's own: closed by `close()`, and when
 * the start fails.
 */
export async function assembleServer<S extends PlantStore>({
  options,
  openStore,
  worker = {},
}: Assembly<S>): Promise<AssembledServer<S>> {
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  checkPort(port, 'port');
  if (options.ops !== undefined) checkPort(options.ops.port, 'ops.port');
  const timeouts = resolveTimeouts(options.timeouts);
  const { tokenFile } = options;
  if (tokenFile !== undefined && options.tokens !== undefined)
    throw new TypeError('give either tokens or tokenFile, not both');

  const logger = resolveLogger(options, worker.worker);
  // Read before the store opens, so a bad file leaves no store to close.
  const fileTokens = tokenFile === undefined ? undefined : await openTokenFile(tokenFile);

  const owned = options.store === undefined;
  const chosen = owned ? await openStore?.() : undefined;
  let parts: ListenerParts<S>;
  try {
    const store = options.store ?? chosen?.store;
    parts = createListenerParts(
      {
        ...options,
        ...(store !== undefined && { store }),
        ...(fileTokens !== undefined && { tokens: fileTokens }),
      },
      logger,
      { metrics: options.ops !== undefined || worker.metrics !== undefined, lingerMs: timeouts.lingerTimeout },
    );
  } catch (error) {
    // The start's error is the one to report, not a failure to close what it opened.
    await chosen?.store?.close?.().catch(() => undefined);
    throw error;
  }
  const { app, metrics, state } = parts;
  const store = app.store;
  const closeStore = async (): Promise<void> => {
    if (owned) await store.close?.();
  };
  if (metrics !== undefined) worker.metrics?.(metrics);
  if (fileTokens !== undefined) metrics?.observeTokenReload(undefined, fileTokens.size);
  const readiness = new Readiness(store, logger);
  worker.readiness?.(readiness);

  // The operations listener comes first: /livez answers and /readyz says "starting" meanwhile.
  const ops = options.ops === undefined || metrics === undefined ? undefined : createOps(readiness, metrics);
  const opsHost = options.ops?.host ?? host;
  let server: Server;
  try {
    server = createNodeServer(parts, await state.answers, timeouts, logger);
    if (ops !== undefined) await listen(ops, options.ops!.port, opsHost);
    await listen(server, port, host);
    await readiness.start();
  } catch (error) {
    ops?.close();
    await closeStore().catch(() => undefined);
    throw error;
  }
  const api = baseUrl(server, host);
  const url = `${api.url}${app.basePath}`;
  const opsUrl = ops === undefined ? undefined : baseUrl(ops, opsHost).url;
  logger?.info('listening', {
    event: 'start',
    pid: process.pid,
    url,
    ...(opsUrl !== undefined && { opsUrl }),
    readiness: readiness.state,
  });

  let closing: Promise<void> | undefined;
  const running: PlantStoreServer<S> = {
    url,
    port: api.port,
    host,
    tokens: parts.tokens,
    store,
    ...(opsUrl !== undefined && { opsUrl }),
    async reloadTokens() {
      if (tokenFile === undefined || fileTokens === undefined)
        throw new TypeError('this server has no tokenFile to reload');
      return reloadTokenFile(tokenFile, fileTokens, logger, metrics);
    },
    // Drains the API, closes the store when it is the server's own, then the operations listener.
    close() {
      closing ??= (async () => {
        readiness.drain();
        logger?.info('draining', { event: 'drain', inFlight: state.inFlight });
        await drain(server, state, timeouts.shutdownTimeout);
        await closeStore();
        if (ops !== undefined) await new Promise<void>((resolve) => ops.close(() => resolve()));
        logger?.info('stopped', { event: 'stop' });
        logger?.flush();
      })();
      return closing;
    },
  };
  return { server: running, ...(chosen?.banner !== undefined && { storeBanner: chosen.banner }) };
}

/** The operations listener of one process: its own readiness and metrics. */
function createOps(readiness: Readiness, metrics: Metrics): Server {
  return createOpsServer({
    readiness: async () => ({ ready: readiness.state === 'ready', state: readiness.state, reason: readiness.reason }),
    metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
  });
}
