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
}

/** Cross-origin access for browser apps on other origins. */
export interface CorsOptions {
  /** Origins allowed to call, exactly as browsers send them (`https://app.example`), or `"*"`. */
  readonly origins: readonly string[] | '*';
  /** How long browsers may cache a preflight answer, in seconds. Default: 600. */
  readonly maxAge?: number;
}

/** At most `requests` per `seconds`: a burst of `requests`, then one every `seconds / requests` on average. */
export interface RateLimit {
  readonly requests: number;
  readonly seconds: number;
}

/**
 * JWT bearer tokens from an identity provider (RFC 7519), verified with jose. A token is accepted
 * when its signature verifies with a key of the JWKS (or the secret), its algorithm is one of
 * `algorithms`, `iss` and `aud` match, and `exp` (required), `nbf` and `iat` hold within
 * `clockTolerance`. A verified token is remembered until it expires, keyed by the whole token.
 */
export interface JwtAuthOptions {
  /**
   * The provider's keys: its JWKS URL (https; http only to localhost, 127.0.0.1 or [::1]), fetched
   * when first needed, cached for `jwksMaxAge` and fetched again for an unknown `kid` once
   * `jwksCooldown` has passed; or a JWK Set (`{ keys: [...] }`) held in memory.
   */
  readonly jwks?: string | URL | { readonly keys: readonly object[] };
  /** A shared secret for HS256/384/512 instead of `jwks` (at least 32 bytes); then `algorithms` must name them. */
  readonly secret?: string | Uint8Array;
  /** The accepted `iss` (one, or a list). Required. */
  readonly issuer: string | readonly string[];
  /** The accepted `aud`: the token must name one of them. Required. */
  readonly audience: string | readonly string[];
  /**
   * Accepted `alg` values. Default: RS256, PS256, ES256, EdDSA. `none` is never accepted; HS256/384/512
   * only with `secret` (an HMAC with public keys is the key confusion attack).
   */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`, `nbf` and `iat`, in seconds. Default 30. */
  readonly clockTolerance?: number;
  /** Longer tokens are refused before any parsing, in characters. Default 8192. */
  readonly maxTokenLength?: number;
  /** How long a JWKS fetch may take, in ms. Default 5,000. */
  readonly jwksTimeout?: number;
  /** The least time between two fetches for unknown `kid`s, in ms. Default 30,000. */
  readonly jwksCooldown?: number;
  /** How long fetched keys are used before they are fetched again, in ms. Default 600,000. */
  readonly jwksMaxAge?: number;
  /**
   * The `Retry-After` of the 503 (50302) while the JWKS cannot be fetched, in seconds; for that long
   * every token whose key is not cached gets the 503 at once, without another fetch. Default 5.
   */
  readonly retryAfter?: number;
}

/** Authentication beyond static tokens: JWTs, and the limits that answer 429 (42901). */
export interface PlantStoreAuthOptions {
  /** Accept JWT bearer tokens (beside `tokens`, when both are given). Default: off. */
  readonly jwt?: JwtAuthOptions;
  /**
   * Requests per credential (a token entry, or a JWT's issuer and subject), in this app's memory.
   * Over it: 429 with `Retry-After`. Default: none.
   */
  readonly rateLimit?: RateLimit;
  /**
   * Failed authentications (a refused token) per client address, for token guessing. Over it, every
   * request from that address answers 429 until the bucket refills, right tokens too. Needs the
   * transport to give `clientAddress`. Default: none.
   */
  readonly failedAuthLimit?: RateLimit;
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
