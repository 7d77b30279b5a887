// The public types of `createPlantStoreListener`, apart from it so that the parts that build a listener
// (listener-parts.ts, assemble.ts) can name them without importing the public file that imports them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  CorsOptions,
  MemoryStore,
  PlantStore,
  PlantStoreApp,
  PlantStoreAuthOptions,
  TokenSet,
} from '@plant-store/core';
import type { LogSink } from './log-sink.js';
import type { LogLevel } from './logger.js';

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
