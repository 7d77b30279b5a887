// The authentication options of the app, apart from static tokens. A leaf: it imports nothing, so the
// app's types, the bearer check and the JWT verifier all import it and never each other.

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
