import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createPlantStoreApp, type CorsOptions, type PlantStore, type PlantStoreApp } from '@plant-store/core';
import { openFileStore } from './file-store.js';
import { ClientClosedError } from './internal/node-request.js';
import { createRequestListener, type ListenerState } from './internal/request-listener.js';
import { createLogger, describeError } from './internal/logger.js';
import {
  answerForClientError,
  createTransportAnswers,
  newRequestId,
  rawResponse,
  type TransportAnswer,
  type TransportAnswers,
} from './internal/transport-errors.js';

/** Where JSON log lines go: anything with a `write(string)`, such as a stream or a test's collector. */
export interface LogSink {
  write(line: string): unknown;
}

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
}

/** Options of {@link startPlantStoreServer}. Every one has a CLI flag and an environment variable. */
export interface PlantStoreServerOptions {
  /** TCP port; `0` picks a free one (see {@link PlantStoreServer.port}). Default 4010. */
  readonly port?: number;
  /** Interface to listen on. Default `127.0.0.1`: opening it wider is an explicit choice. */
  readonly host?: string;
  /**
   * Accepted bearer tokens, or `"any"` to accept every well-formed bearer token. Default: one random
   * token made at start, returned in {@link PlantStoreServer.tokens} (DECISIONS.md: the server never
   * accepts every token unless told so).
   */
  readonly tokens?: readonly string[] | 'any';
  /** A path prefix in front of `/plants`, e.g. `/api`. Default: none. */
  readonly basePath?: string;
  /** The largest accepted body in bytes. Default 1 MiB. */
  readonly bodyLimit?: number;
  /**
   * Cross-origin access for browser apps: the core's {@link CorsOptions} (`{ origins, maxAge }`), or
   * just the origins (a list, or `"*"`) with the default preflight cache of 600 s. Default: CORS off.
   */
  readonly cors?: CorsOptions | readonly string[] | '*';
  /** A file for the durable store (created when missing). Default: plants live in memory. */
  readonly data?: string;
  /**
   * The store to use, for programs and tests. It stays open after `close()`: its owner closes it.
   * Not together with `data`.
   */
  readonly store?: PlantStore;
  /**
   * JSON-line request log: `true` for stderr, or any sink with `write(string)`. Lines carry time,
   * level, request id, method, path, status and duration; never a token, header value or body.
   * Default: off.
   */
  readonly log?: boolean | LogSink;
  /** Time limits; see {@link PlantStoreServerTimeouts}. */
  readonly timeouts?: PlantStoreServerTimeouts;
}

/** A running reference server. */
export interface PlantStoreServer {
  /** The base URL clients call, base path included, e.g. `http://127.0.0.1:4010/api`. */
  readonly url: string;
  /** The port actually listened on (useful with `port: 0`). */
  readonly port: number;
  /** The interface listened on. */
  readonly host: string;
  /** The accepted tokens (the generated one when none was given), or `"any"`. */
  readonly tokens: readonly string[] | 'any';
  /** The store plants are written to. */
  readonly store: PlantStore;
  /**
   * Stops accepting connections, lets requests in flight finish (up to `shutdownTimeout`), closes
   * idle keep-alive sockets, then flushes and closes the store the server opened. Safe to call twice.
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
} as const;

/** A random bearer token: 192 bits, URL-safe, so it can be pasted into a shell or a header. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
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
export async function startPlantStoreServer(
  options: PlantStoreServerOptions = {},
): Promise<PlantStoreServer> {
  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${String(port)}`);
  }
  if (options.data !== undefined && options.store !== undefined) {
    throw new TypeError('give either data (a file) or store, not both');
  }
  const tokens = options.tokens ?? [generateToken()];
  const timeouts = { ...DEFAULTS, ...definedOnly(options.timeouts) };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new RangeError(`timeouts.${name} must be a positive number of milliseconds`);
    }
  }
  const logger =
    options.log === undefined || options.log === false
      ? undefined
      : createLogger(options.log === true ? process.stderr : options.log);

  const store = options.data !== undefined ? await openFileStore({ path: options.data }) : options.store;
  const ownsStore = options.store === undefined;
  let app: PlantStoreApp;
  let answers: TransportAnswers;
  try {
    app = createPlantStoreApp({
      tokens,
      ...(store !== undefined && { store }),
      ...(options.basePath !== undefined && { basePath: options.basePath }),
      ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
      ...(options.cors !== undefined && { cors: corsOptions(options.cors) }),
      onError: (error, requestId) => {
        // A client that leaves mid-body is not a fault of the server.
        if (error instanceof ClientClosedError) return;
        logger?.error({ requestId, event: 'fault', error: describeError(error) });
      },
    });
    answers = await createTransportAnswers(app.basePath);
  } catch (error) {
    // Bad options (the core checks them) must not leave the data file open and locked: the caller
    // fixes them and starts again in the same process.
    if (ownsStore) await store?.close();
    throw error;
  }

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
  const state: ListenerState = {
    closing: false,
    inFlight: 0,
    onIdle: () => server.closeIdleConnections(),
    logger,
    answers,
  };
  server.on('request', createRequestListener(app, state, false));
  server.on('checkContinue', createRequestListener(app, state, true));
  // An Expect other than 100-continue is ignored and the request answered as usual (RFC 9110
  // §10.1.1 lets a server do that instead of a 417), which Node would otherwise send bare.
  server.on('checkExpectation', createRequestListener(app, state, false));
  // A CONNECT names no path of this service: the core's rule for unknown paths, 404 with the JSON
  // Error body. Without a listener Node would cut the socket without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const requestId = newRequestId();
    logger?.warn({ requestId, event: 'connect', status: answers.connectRefused.status });
    answerOnSocket(socket, answers.connectRefused, requestId);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    onClientError(error, socket, answers, logger);
  });

  try {
    await listen(server, port, host);
  } catch (error) {
    if (ownsStore) await app.store.close();
    throw error;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${actualPort}${app.basePath}`,
    port: actualPort,
    host,
    tokens,
    store: app.store,
    close() {
      closing ??= shutdown(server, state, timeouts.shutdownTimeout, async () => {
        if (ownsStore) await app.store.close();
      });
      return closing;
    },
  };
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
  logger: ReturnType<typeof createLogger> | undefined,
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
  logger?.warn({ requestId, event: 'client-error', code: error.code, status: answer.status });
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

/** The server's `cors` option as the core takes it: a bare list or `"*"` names the origins only. */
function corsOptions(cors: CorsOptions | readonly string[] | '*'): CorsOptions {
  return cors === '*' || Array.isArray(cors) ? { origins: cors as readonly string[] | '*' } : (cors as CorsOptions);
}
