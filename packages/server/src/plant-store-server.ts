import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import {
  createMemoryStore,
  createTokenSet,
  type MemoryStore,
  type PlantStore,
  parseTokenFile,
  type TokenSet,
} from '@plant-store/core';
import { version as VERSION } from '../package.json';
import { createListenerParts, type PlantStoreListenerOptions } from './create-plant-store-listener.js';
import { DEFAULT_LINGER, type ListenerState } from './internal/request-listener.js';
import { createLogger, describeError, LOG_LEVELS, type Logger } from './internal/logger.js';
import { createMetrics, type Metrics } from './internal/metrics.js';
import { createOpsServer, Readiness } from './internal/ops.js';
import {
  answerForClientError,
  newRequestId,
  rawResponse,
  type TransportAnswer,
  type TransportAnswers,
} from './internal/transport-errors.js';

/** Time limits of the server, in milliseconds. Small on purpose: slow clients are cut in seconds. */
export interface PlantStoreServerTimeouts {
  /** Time to receive a request's headers; then 408 and the socket is closed. Default 10,000. */
  readonly headersTimeout?: number;
  /** Time to receive a whole request, body included; then 408 and close. Default 30,000. */
  readonly requestTimeout?: number;
  /** How long an idle keep-alive socket stays open. Default 5,000. */
  readonly keepAliveTimeout?: number;
  /** How long `close()` lets requests in flight finish before it cuts their sockets. Default 10,000. */
  readonly shutdownTimeout?: number;
  /**
   * How long a refused upload (401, 415, 413) is still read after its answer, so the client can finish
   * sending and read it (a lingering close; at most 4 MiB is read). Default 5,000.
   */
  readonly lingerTimeout?: number;
}

/**
 * Options of {@link startPlantStoreServer}: the listener's, plus where to listen and the time limits.
 * The CLI has a flag and an environment variable for each, and `--data` for a file store.
 */
export interface PlantStoreServerOptions<S extends PlantStore = MemoryStore> extends PlantStoreListenerOptions<S> {
  /** TCP port; `0` picks a free one (see {@link PlantStoreServer.port}). Default 4010. */
  readonly port?: number;
  /** Interface to listen on. Default `127.0.0.1`: opening it wider is an explicit choice. */
  readonly host?: string;
  /** Time limits; see {@link PlantStoreServerTimeouts}. */
  readonly timeouts?: PlantStoreServerTimeouts;
  /**
   * A token file in place of `tokens`: one entry per line, a token or `sha256:<hex>` of one, blank
   * lines and `#` comments allowed. Read at start (a bad file fails the start) and again by
   * {@link PlantStoreServer.reloadTokens} (the CLI calls it on SIGHUP). Secrets in a file stay out of
   * the process list, where a `--token` flag is visible to every local user.
   */
  readonly tokenFile?: string;
  /**
   * The operations listener, on a port of its own: `GET /livez`, `/readyz` (the store's health,
   * start-up and shutdown) and `/metrics` (Prometheus). No authentication: bind it where only the
   * orchestrator and Prometheus reach. Default: off.
   */
  readonly ops?: PlantStoreOpsOptions;
}

/** Where the operations listener listens. */
export interface PlantStoreOpsOptions {
  /** TCP port; `0` picks a free one. */
  readonly port: number;
  /** Interface. Default: the server's `host`. */
  readonly host?: string;
}

/** A running reference server. */
export interface PlantStoreServer<S extends PlantStore = MemoryStore> {
  /** The base URL clients call, base path included, e.g. `http://127.0.0.1:4010/api`. */
  readonly url: string;
  /** The port actually listened on (useful with `port: 0`). */
  readonly port: number;
  /** The interface listened on. */
  readonly host: string;
  /**
   * The accepted tokens (the generated one when none was given), `"any"`, the set read from
   * `tokenFile`, or `[]` when only JWTs are accepted.
   */
  readonly tokens: readonly string[] | 'any' | TokenSet;
  /** The store plants are written to. */
  readonly store: S;
  /** The operations listener's base URL (`http://127.0.0.1:9090`), when `ops` was given. */
  readonly opsUrl?: string;
  /**
   * Reads `tokenFile` again and swaps the accepted tokens at once: requests in flight finish under the
   * set they started with, the next ones meet the new one. Resolves to the number of entries. When the
   * file cannot be read or holds a bad entry, rejects with why (the line number, never its content),
   * logs it as an error and keeps the tokens as they were: a broken file never locks everyone out.
   * Rejects with a TypeError when the server has no `tokenFile`.
   */
  reloadTokens(): Promise<number>;
  /**
   * Stops accepting connections, lets requests in flight finish (up to `shutdownTimeout`), closes
   * idle keep-alive sockets, then closes the store when it is the server's own (no `store` option
   * given); a store the caller passed stays open for its owner to close. Safe to call twice.
   */
  close(): Promise<void>;
}

const DEFAULT_PORT = 4010;
const DEFAULT_HOST = '127.0.0.1';
const DEFAULTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownTimeout: 10_000,
  lingerTimeout: DEFAULT_LINGER.ms,
} as const;

/** The entries of a token file; an Error that names the file and the reason (never an entry). */
async function readTokenFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the token file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return parseTokenFile(text);
  } catch (error) {
    throw new TypeError(`the token file ${path}: ${(error as Error).message}`);
  }
}

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
export function startPlantStoreServer<S extends PlantStore = MemoryStore>(
  options: PlantStoreServerOptions<S> = {},
): Promise<PlantStoreServer<S>> {
  return startServer(options, {});
}

/** What a cluster worker adds: its number on every log line, and metrics for the primary to sum. */
export interface WorkerExtras {
  readonly worker?: number;
  /** Make the metrics even without an operations listener (the primary serves them). */
  readonly metrics?: (metrics: Metrics) => void;
  /** Called with the process's readiness once it listens, for the primary's /readyz. */
  readonly readiness?: (readiness: Readiness) => void;
}

export async function startServer<S extends PlantStore>(
  options: PlantStoreServerOptions<S>,
  worker: WorkerExtras,
): Promise<PlantStoreServer<S>> {
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  checkPort(port, 'port');
  if (options.ops !== undefined) checkPort(options.ops.port, 'ops.port');
  const timeouts = { ...DEFAULTS, ...definedOnly(options.timeouts) };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new RangeError(`timeouts.${name} must be a positive number of milliseconds`);
    }
  }
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new TypeError(`logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const logger =
    options.log === undefined || options.log === false
      ? undefined
      : createLogger(options.log === true ? 'stderr' : options.log, {
          ...(options.logLevel !== undefined && { level: options.logLevel }),
          ...(worker.worker !== undefined && { worker: worker.worker }),
        });
  // A store the caller gave stays open after close(): its owner closes it. The default memory store
  // is the server's own.
  const ownsStore = options.store === undefined;
  // Without a store option S is its default, MemoryStore: the cast is what that default means.
  const store = options.store ?? (createMemoryStore() as unknown as S);
  const metrics =
    options.ops !== undefined || worker.metrics !== undefined ? createMetrics(store, { version: VERSION }) : undefined;
  if (metrics !== undefined) worker.metrics?.(metrics);
  if (options.tokenFile !== undefined && options.tokens !== undefined)
    throw new TypeError('give either tokens or tokenFile, not both');
  const tokenFile = options.tokenFile;
  const tokenSet = tokenFile === undefined ? undefined : createTokenSet(await readTokenFile(tokenFile));
  const { app, tokens, state, listener, continueListener } = createListenerParts(
    { ...options, store, ...(tokenSet !== undefined && { tokens: tokenSet }) },
    { logger, metrics },
  );
  state.linger = { ...DEFAULT_LINGER, ms: timeouts.lingerTimeout };
  if (tokenSet !== undefined) metrics?.observeTokenReload(undefined, tokenSet.size);
  const answers = await state.answers;
  const readiness = new Readiness(store, logger);
  worker.readiness?.(readiness);

  const server = createServer({
    // Node rejects a headers timeout above the request timeout.
    headersTimeout: Math.min(timeouts.headersTimeout, timeouts.requestTimeout),
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    // Node enforces the two timeouts above only when it sweeps its connections (every 30 s by
    // default), which would let a slow client hold a socket far longer than configured.
    connectionsCheckingInterval: Math.max(
      50,
      Math.min(1_000, Math.floor(Math.min(timeouts.headersTimeout, timeouts.requestTimeout) / 2)),
    ),
    // Checked in the listener instead, so the 400 carries the JSON Error body.
    requireHostHeader: false,
  });

  let closing: Promise<void> | undefined;
  state.onIdle = () => server.closeIdleConnections();
  server.on('request', listener);
  server.on('checkContinue', continueListener);
  // An Expect other than 100-continue is ignored and the request answered as usual (RFC 9110
  // §10.1.1 lets a server do that instead of a 417), which Node would otherwise send bare.
  server.on('checkExpectation', listener);
  // A CONNECT names no path of this service: the core's rule for unknown paths, 404 with the JSON
  // Error body. Without a listener Node would cut the socket without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const requestId = newRequestId();
    logger?.warn('CONNECT refused', { requestId, event: 'connect', status: answers.connectRefused.status });
    answerOnSocket(socket, answers.connectRefused, requestId);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    onClientError(error, socket, answers, logger);
  });

  // The operations listener comes first: /livez answers and /readyz says "starting" meanwhile.
  const ops =
    options.ops === undefined || metrics === undefined
      ? undefined
      : createOpsServer({
          readiness: async () => ({
            ready: readiness.state === 'ready',
            state: readiness.state,
            reason: readiness.reason,
          }),
          metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
        });
  const opsHost = options.ops?.host ?? host;
  try {
    if (ops !== undefined) await listen(ops, options.ops!.port, opsHost);
    await listen(server, port, host);
    await readiness.start();
  } catch (error) {
    ops?.close();
    if (ownsStore) await store.close?.();
    throw error;
  }
  const urlOf = (listening: Server, on: string) => {
    const address = listening.address();
    const actual = typeof address === 'object' && address !== null ? address.port : 0;
    return { port: actual, url: `http://${on.includes(':') ? `[${on}]` : on}:${actual}` };
  };
  const api = urlOf(server, host);
  const opsUrl = ops === undefined ? undefined : urlOf(ops, opsHost).url;
  logger?.info('listening', {
    event: 'start',
    pid: process.pid,
    url: `${api.url}${app.basePath}`,
    ...(opsUrl !== undefined && { opsUrl }),
    readiness: readiness.state,
  });

  return {
    url: `${api.url}${app.basePath}`,
    port: api.port,
    host,
    tokens,
    store,
    ...(opsUrl !== undefined && { opsUrl }),
    async reloadTokens() {
      if (tokenFile === undefined || tokenSet === undefined)
        throw new TypeError('this server has no tokenFile to reload');
      try {
        const entries = await readTokenFile(tokenFile);
        tokenSet.replace(entries);
        metrics?.observeTokenReload(true, tokenSet.size);
        logger?.info('tokens reloaded', { event: 'tokens-reloaded', entries: tokenSet.size });
        return tokenSet.size;
      } catch (error) {
        metrics?.observeTokenReload(false, tokenSet.size);
        logger?.error('token file not reloaded; the previous tokens stay', {
          event: 'tokens-reload-failed',
          error: describeError(error),
          entries: tokenSet.size,
        });
        throw error;
      }
    },
    close() {
      closing ??= (async () => {
        readiness.drain();
        logger?.info('draining', { event: 'drain', inFlight: state.inFlight });
        await shutdown(server, state, timeouts.shutdownTimeout, async () => {
          if (ownsStore) await store.close?.();
        });
        if (ops !== undefined) await new Promise<void>((resolve) => ops.close(() => resolve()));
        logger?.info('stopped', { event: 'stop' });
        logger?.flush();
      })();
      return closing;
    },
  };
}

function checkPort(port: number, name: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`${name} must be an integer from 0 to 65535, got ${String(port)}`);
  }
}

function definedOnly(timeouts: PlantStoreServerTimeouts | undefined): PlantStoreServerTimeouts {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(timeouts ?? {})) {
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

async function shutdown(
  server: Server,
  state: ListenerState,
  graceMs: number,
  closeStore: () => Promise<void>,
): Promise<void> {
  state.closing = true;
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  // server.close() already drops idle sockets; these are the ones busy with a request, which
  // close themselves after their answer (it carries `Connection: close`).
  server.closeIdleConnections();
  // A request that never finishes must not hold the process forever.
  const grace = setTimeout(() => server.closeAllConnections(), graceMs);
  grace.unref();
  try {
    await stopped;
  } finally {
    clearTimeout(grace);
  }
  await closeStore();
}

function onClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  answers: TransportAnswers,
  logger: Logger | undefined,
): void {
  // Node's own rule (docs of 'clientError'): write only when the socket still can take an answer
  // and no response has started on it; otherwise the bytes would corrupt a response in progress.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  const answer = answerForClientError(answers, error.code);
  const requestId = newRequestId();
  logger?.warn('unparsable request', { requestId, event: 'client-error', code: error.code, status: answer.status });
  answerOnSocket(socket, answer, requestId);
}

/**
 * Writes one of the server's own answers straight to a socket Node handed over (after a parse
 * failure, or a CONNECT) and closes it: the framing is lost or never HTTP again, so whatever the
 * client still sends is not read.
 */
function answerOnSocket(socket: Socket, answer: TransportAnswer, requestId: string): void {
  socket.end(rawResponse(answer, requestId));
  socket.destroySoon();
}
