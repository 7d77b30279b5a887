import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import {
  type CorsOptions,
  createMemoryStore,
  createPlantStoreApp,
  type MemoryStore,
  type PlantStore,
  type PlantStoreApp,
  type PlantStoreAppOptions,
  type PlantStoreAuthOptions,
  StoreUnavailableError,
  type TokenSet,
} from '@plant-store/core';
import { BodyAlreadyReadError, ClientClosedError } from './internal/node-request.js';
import { createRequestListener, DEFAULT_LINGER, type ListenerState } from './internal/request-listener.js';
import { createLogger, describeError, LOG_LEVELS, type Logger, type LogLevel } from './internal/logger.js';
import type { Metrics } from './internal/metrics.js';
import { createTransportAnswers } from './internal/transport-errors.js';

/** Where JSON log lines go: anything with a `write(string)`, such as a stream or a test's collector. */
export interface LogSink {
  write(line: string): unknown;
}

/** Options of {@link createPlantStoreListener}; `startPlantStoreServer` takes them too. `S` is the store's type. */
export interface PlantStoreListenerOptions<S extends PlantStore = MemoryStore> {
  /**
   * Accepted bearer tokens, or `"any"` to accept every well-formed bearer token. Default: one random
   * token, made when the listener is created and readable as `tokens` (a server never accepts every
   * token unless told so).
   */
  readonly tokens?: readonly string[] | 'any' | TokenSet;
  /**
   * JWT bearer tokens and rate limits: the core's {@link PlantStoreAuthOptions}. With `auth.jwt` and no
   * `tokens`, only JWTs are accepted (no token is generated).
   */
  readonly auth?: PlantStoreAuthOptions;
  /**
   * How many proxies in front of the server add to `X-Forwarded-For`: the client address (for
   * `auth.failedAuthLimit`) is the one that many entries from its right end. Default 0: the socket's
   * peer, and the header is ignored (a client could write anything there).
   */
  readonly trustProxy?: number;
  /**
   * A path prefix in front of `/plants`, e.g. `/api`: under a mount, after the mount path, or the full
   * prefix including it (a request whose full path starts with `basePath` is matched on its full path).
   * Default: none.
   */
  readonly basePath?: string;
  /** The largest accepted body in bytes. Default 1 MiB. */
  readonly bodyLimit?: number;
  /**
   * Cross-origin access for browser apps: the core's {@link CorsOptions} (`{ origins, maxAge }`), or
   * just the origins (a list, or `"*"`) with the default preflight cache of 600 s. Default: CORS off.
   */
  readonly cors?: CorsOptions | readonly string[] | '*';
  /**
   * Where plants live: any {@link PlantStore} (`@plant-store/store-file`'s `openFileStore`, say). Its
   * owner closes it. Default: a new memory store.
   */
  readonly store?: S;
  /**
   * JSON-line request log: `true` for stderr, or any sink with `write(string)`. Lines carry time,
   * level, request id, method, path, status and duration; never a token, header value or body.
   * Default: off.
   */
  readonly log?: boolean | LogSink;
  /** The least severe lines the log writes: `debug`, `info` (every request), `warn` or `error`. Default `info`. */
  readonly logLevel?: LogLevel;
}

/**
 * A node:http request listener that serves the Plant Store API, for servers you run yourself. It
 * answers only through the core, so every rule of the service holds as in the reference server.
 */
export interface PlantStoreListener<S extends PlantStore = MemoryStore> {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The core application that answers. */
  readonly app: PlantStoreApp<S>;
  /** The accepted tokens (the generated one when none was given), or `"any"`. */
  readonly tokens: readonly string[] | 'any' | TokenSet;
  /** The store plants are written to. */
  readonly store: S;
}

/** A random bearer token: 192 bits, URL-safe, so it can be pasted into a shell or a header. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

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
  const parts = createListenerParts(options);
  // Without metrics the app writes to the store itself, so its store is `S`.
  return Object.assign(parts.listener, {
    app: parts.app as PlantStoreApp<S>,
    tokens: parts.tokens,
    store: parts.store,
  });
}

/** What a listener is made of, for the reference server, which also drains and answers on sockets. */
export interface ListenerParts<S extends PlantStore> {
  /** The app; its store is `store`, or `store` timed for the metrics. */
  readonly app: PlantStoreApp<PlantStore>;
  readonly store: S;
  readonly tokens: readonly string[] | 'any' | TokenSet;
  readonly state: ListenerState;
  readonly logger: Logger | undefined;
  /** The `request` listener. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The `checkContinue` listener: it sends `100 Continue` only once the core wants the body. */
  readonly continueListener: (req: IncomingMessage, res: ServerResponse) => void;
}

/** What the reference server adds to a listener: its logger (one per process) and its metrics. */
export interface ListenerExtras {
  readonly logger?: Logger | undefined;
  readonly metrics?: Metrics | undefined;
}

/** Builds the app and the listeners over it; throws the core's TypeError or RangeError on bad options. */
export function createListenerParts<S extends PlantStore>(
  options: PlantStoreListenerOptions<S>,
  extras: ListenerExtras = {},
): ListenerParts<S> {
  // JWTs alone are a choice: a token is made only when nothing else would be accepted.
  const tokens = options.tokens ?? (options.auth?.jwt === undefined ? [generateToken()] : undefined);
  const trustProxy = options.trustProxy ?? 0;
  if (!Number.isSafeInteger(trustProxy) || trustProxy < 0 || trustProxy > 32)
    throw new TypeError('trustProxy must be a whole number of proxies from 0 to 32');
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new TypeError(`logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const logger =
    extras.logger ??
    (options.log === undefined || options.log === false
      ? undefined
      : createLogger(options.log === true ? 'stderr' : options.log, {
          ...(options.logLevel !== undefined && { level: options.logLevel }),
        }));
  // Without a store option S is its default, MemoryStore: the cast is what that default means.
  const store = options.store ?? (createMemoryStore() as unknown as S);
  const app = createPlantStoreApp<PlantStore>({
    // Tokens, JWTs or both; the core refuses neither with a TypeError, which the cast below leaves to it.
    ...(tokens !== undefined && { tokens }),
    ...(options.auth !== undefined && { auth: options.auth }),
    store,
    ...(extras.metrics !== undefined && { onInsert: extras.metrics.observeInsert }),
    ...(options.basePath !== undefined && { basePath: options.basePath }),
    ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    ...(options.cors !== undefined && { cors: corsOptions(options.cors) }),
    onError: (error, requestId) => {
      // A client that leaves mid-body is not a fault of the server.
      if (error instanceof ClientClosedError) return;
      // The app's setup, not a fault of the service: the line says what to change.
      if (error instanceof BodyAlreadyReadError) {
        logger?.error('request body already read', { requestId, event: 'body-already-read', error: error.message });
        return;
      }
      // The store's outage is logged once, when its health check fails; each 503 is in its request line.
      if (StoreUnavailableError.is(error)) {
        logger?.debug('store unavailable for a request', {
          requestId,
          event: 'store-unavailable',
          error: describeError(error),
        });
        return;
      }
      logger?.error('fault', { requestId, event: 'fault', error: describeError(error) });
    },
  } as PlantStoreAppOptions<PlantStore>);
  const state: ListenerState = {
    closing: false,
    inFlight: 0,
    onIdle: () => {},
    logger,
    metrics: extras.metrics,
    answers: createTransportAnswers(app.basePath),
    trustProxy,
    linger: DEFAULT_LINGER,
  };
  return {
    app,
    store,
    tokens: tokens ?? [],
    state,
    logger,
    listener: createRequestListener(app, state, false),
    continueListener: createRequestListener(app, state, true),
  };
}

/** The `cors` option as the core takes it: a bare list or `"*"` names the origins only. */
function corsOptions(cors: CorsOptions | readonly string[] | '*'): CorsOptions {
  return cors === '*' || Array.isArray(cors) ? { origins: cors as readonly string[] | '*' } : (cors as CorsOptions);
}
