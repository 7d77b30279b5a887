// The public types of `startPlantStoreServer`, apart from it so that the assembly (assemble.ts) and the
// CLI's modules can name them without importing the public file that imports them.
import type { MemoryStore, PlantStore, TokenSet } from '@plant-store/core';
import type { PlantStoreListenerOptions } from './listener-types.js';

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
