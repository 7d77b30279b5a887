// What a Plant Store listener is made of: its logger, its credentials, the core app, its metrics and the
// node:http handlers over them. `createPlantStoreListener` builds its listener here, and so does the
// reference server's assembly (assemble.ts), which adds the socket-level parts.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type CorsOptions,
  createPlantStoreApp,
  type JwtAuthOptions,
  type PlantStore,
  type PlantStoreApp,
  type PlantStoreAuthOptions,
  StoreUnavailableError,
  type TokenSet,
} from '@plant-store/core';
import { version } from '../../package.json';
import type { PlantStoreListenerOptions } from './listener-types.js';
import { checkLogLevel, createLogger, describeError, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { BodyAlreadyReadError, ClientClosedError } from './node-request.js';
import { checkTrustProxy, DEFAULT_TRUST_PROXY } from './option-checks.js';
import { createRequestListener, DEFAULT_LINGER, type ListenerState } from './request-listener.js';
import { createTransportAnswers } from './transport-errors.js';

/** A random bearer token: 192 bits, URL-safe, so it can be pasted into a shell or a header. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The logger the `log` and `logLevel` options ask for, or none: the one place they are read, for a
 * listener, a server and the primary of `--workers`. `worker` goes on every line.
 */
export function resolveLogger(
  options: Pick<PlantStoreListenerOptions, 'log' | 'logLevel'>,
  worker?: number,
): Logger | undefined {
  if (options.logLevel !== undefined) checkLogLevel(options.logLevel);
  if (options.log === undefined || options.log === false) return undefined;
  return createLogger(options.log === true ? 'stderr' : options.log, {
    ...(options.logLevel !== undefined && { level: options.logLevel }),
    ...(worker !== undefined && { worker }),
  });
}

/** Whether nothing but a token made at start would be accepted: no tokens, no token file, no JWTs. */
export function needsGeneratedToken(options: {
  readonly tokens?: unknown;
  readonly tokenFile?: string;
  readonly auth?: { readonly jwt?: unknown };
}): boolean {
  return options.tokens === undefined && options.tokenFile === undefined && options.auth?.jwt === undefined;
}

/** What a listener is made of; the reference server also drains it and answers on its sockets. */
export interface ListenerParts<S extends PlantStore> {
  readonly app: PlantStoreApp<S>;
  readonly tokens: readonly string[] | 'any' | TokenSet;
  /** The metrics, when they were asked for. */
  readonly metrics: Metrics | undefined;
  readonly state: ListenerState;
  /** The `request` listener. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The `checkContinue` listener: it sends `100 Continue` only once the core wants the body. */
  readonly continueListener: (req: IncomingMessage, res: ServerResponse) => void;
}

/** What the reference server adds to a listener. */
export interface ListenerExtras {
  /** Make the metrics (of the app's store, so after the app). */
  readonly metrics?: boolean;
  /** How long a refused upload is still read; default {@link DEFAULT_LINGER}. */
  readonly lingerMs?: number;
}

/**
 * Builds the app and the listeners over it; throws the core's TypeError or RangeError on bad options.
 * Without a `store` option the core's default memory store is the app's, so `app.store` is the store.
 */
export function createListenerParts<S extends PlantStore>(
  options: PlantStoreListenerOptions<S>,
  logger: Logger | undefined,
  extras: ListenerExtras = {},
): ListenerParts<S> {
  const trustProxy = checkTrustProxy(options.trustProxy ?? DEFAULT_TRUST_PROXY);
  const credentials = credentialsOf(options);
  const tokens = 'tokens' in credentials ? credentials.tokens : [];
  const app = createPlantStoreApp<S>({
    ...credentials,
    ...(options.store !== undefined && { store: options.store }),
    // Bound once the metrics exist: they read the app's store, the default one included.
    ...(extras.metrics === true && { onInsert: (outcome, seconds) => metrics?.observeInsert(outcome, seconds) }),
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
  });
  const metrics = extras.metrics === true ? createMetrics(app.store, { version }) : undefined;
  const state: ListenerState = {
    closing: false,
    inFlight: 0,
    onIdle: () => {},
    logger,
    metrics,
    answers: createTransportAnswers(app.basePath),
    trustProxy,
    linger: extras.lingerMs === undefined ? DEFAULT_LINGER : { ...DEFAULT_LINGER, ms: extras.lingerMs },
  };
  return {
    app,
    tokens,
    metrics,
    state,
    listener: createRequestListener(app, state, false),
    continueListener: createRequestListener(app, state, true),
  };
}

/** What the core accepts: tokens (and maybe JWTs), or JWTs alone. */
type Credentials =
  | { readonly tokens: readonly string[] | 'any' | TokenSet; readonly auth?: PlantStoreAuthOptions }
  | { readonly auth: PlantStoreAuthOptions & { readonly jwt: JwtAuthOptions } };

/** The tokens and JWTs the app accepts: JWTs alone are a choice, so a token is made only when nothing else would be accepted. */
function credentialsOf(options: PlantStoreListenerOptions<PlantStore>): Credentials {
  const { tokens, auth } = options;
  const jwt = auth?.jwt;
  if (tokens === undefined && jwt !== undefined) return { auth: { ...auth, jwt } };
  return { tokens: tokens ?? [generateToken()], ...(auth !== undefined && { auth }) };
}

/** The `cors` option as the core takes it: a bare list or `"*"` names the origins only. */
function corsOptions(cors: CorsOptions | readonly string[] | '*'): CorsOptions {
  return cors === '*' || Array.isArray(cors) ? { origins: cors as readonly string[] | '*' } : (cors as CorsOptions);
}
