import type { JwtAuthOptions, PlantStoreAuthOptions } from './auth-options.js';
import type { ErrorCode } from './generated/error-codes.js';
import type { MemoryStore } from './memory-store.js';
import type { PlantStore } from './store.js';
import type { TokenSet } from './token-set.js';

/**
 * One request as a transport sees it. The node:http adapter builds this without allocating a web
 * `Request` (that is most of what makes it fast); `app.fetch` builds it from a `Request`.
 */
export interface PlantStoreRequest {
  readonly method: string;
  /** The path of the request target, without the query string, e.g. `/api/plants`. */
  readonly path: string;
  /** A header's value by lower-case name, or `null`; repeated headers joined with `, `. */
  header(name: string): string | null;
  /**
   * Reads the whole body, stopping as soon as it passes `limit` bytes. Resolves to the bytes, or to
   * `null` when the body was over the limit. Called at most once, and only after authentication,
   * media type and declared length have been judged.
   */
  readBody(limit: number): Promise<Uint8Array | null>;
  /**
   * The client's address, for the limit on failed authentications (`auth.failedAuthLimit`). A
   * transport that knows it sets it (the node:http adapter: the socket's peer, or `X-Forwarded-For`
   * behind a trusted proxy); without it that limit does not apply.
   */
  readonly clientAddress?: string | undefined;
}

/** One answer, ready for any transport to write. */
export interface PlantStoreResponse {
  readonly status: number;
  /** Lower-case header names. Always includes `content-type` when `body` is not empty. */
  readonly headers: Record<string, string>;
  /** The body text (JSON for every answer but a 204 preflight, which has `""`). */
  readonly body: string;
  /**
   * The code of an Error answer, the same number as its body's `error`, so that a transport's logs
   * and metrics need not parse the body. Absent on a success and on the 204 preflight.
   */
  readonly errorCode?: ErrorCode;
  /**
   * The trace and span the request was answered in, when an OpenTelemetry SDK is registered (for the
   * request's log line): the app's HTTP instrumentation's span, or the SERVER span the app started.
   */
  readonly trace?: { readonly traceId: string; readonly spanId: string };
}

/** Cross-origin access for browser apps on other origins. */
export interface CorsOptions {
  /** Origins allowed to call, exactly as browsers send them (`https://app.example`), or `"*"`. */
  readonly origins: readonly string[] | '*';
  /** How long browsers may cache a preflight answer, in seconds. Default: 600. */
  readonly maxAge?: number;
}

/**
 * Options of {@link createPlantStoreApp}; `S` is the type of its store. `tokens` is required, unless
 * `auth.jwt` is given (then a service that takes only JWTs leaves it out).
 */
export type PlantStoreAppOptions<S extends PlantStore = MemoryStore> = PlantStoreAppSettings<S> &
  (
    | {
        /**
         * Accepted bearer tokens: a non-empty list (compared in constant time; an entry may be
         * `sha256:<hex>`, the SHA-256 of a token, so the list need not hold secrets in the clear), a
         * {@link TokenSet} that can be replaced while serving, or `"any"` to accept every well-formed
         * bearer token (what the MSW mocks do by default). There is no default: a server that accepts
         * every token must say so.
         */
        readonly tokens: readonly string[] | 'any' | TokenSet;
        /** JWT bearer tokens and rate limits; see {@link PlantStoreAuthOptions}. */
        readonly auth?: PlantStoreAuthOptions;
      }
    | {
        /** No static token: only JWTs are accepted. */
        readonly tokens?: undefined;
        /** JWT bearer tokens (required without `tokens`) and rate limits. */
        readonly auth: PlantStoreAuthOptions & { readonly jwt: JwtAuthOptions };
      }
  );

/** The options of {@link createPlantStoreApp} besides the credentials it accepts. */
export interface PlantStoreAppSettings<S extends PlantStore = MemoryStore> {
  /** Where plants live. Default: a new memory store. */
  readonly store?: S;
  /** A path prefix in front of `/plants`, e.g. `/api`. Default: none. */
  readonly basePath?: string;
  /** The largest accepted body in bytes. Default: 1 MiB (1,048,576). */
  readonly bodyLimit?: number;
  /** Cross-origin access. Default: off (no CORS headers, `OPTIONS` is a 405). */
  readonly cors?: CorsOptions;
  /**
   * Called with every error a request met, for logging: the unexpected faults (500s) and a store's
   * `StoreUnavailableError` (503s), with the request id. What it receives never reaches the client.
   */
  readonly onError?: (error: unknown, requestId: string) => void;
  /**
   * Called after every insert the store was asked for, for metrics: its outcome and how long the
   * store took, in seconds (for a durable store, until its write is durable). Measured around the
   * store's call, so a memory store keeps its synchronous insert.
   */
  readonly onInsert?: (outcome: InsertOutcome, seconds: number) => void;
}

/** How an insert ended: a new plant, one stored before under that id, or an error. */
export type InsertOutcome = 'created' | 'existing' | 'error';

/** The plant store as one fetch-shaped application. */
export interface PlantStoreApp<S extends PlantStore = MemoryStore> {
  /**
   * Answers a web-standard `Request`, in any runtime that has `fetch`. `info.clientAddress` is the
   * caller's address, for `auth.failedAuthLimit` (Bun's `server.requestIP(request)`, Deno's
   * `info.remoteAddr`).
   */
  fetch(request: Request, info?: { readonly clientAddress?: string }): Promise<Response>;
  /** Answers a transport's plain view of a request; what `fetch` and the node:http adapter call. */
  handle(request: PlantStoreRequest): Promise<PlantStoreResponse>;
  /** The store this application writes to. */
  readonly store: S;
  /**
   * The base path as requests are matched against it: `''`, or `/x…` without a trailing slash
   * (`basePath: 'api/'` gives `/api`), so an adapter can name its own URL without parsing the option again.
   */
  readonly basePath: string;
}
