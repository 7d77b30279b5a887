// JWT bearer tokens (RFC 7519, RFC 9068 style access tokens) verified with jose against a JWKS or a
// shared secret. The JWS verification is jose's: hand-written verification is where key confusion
// and `alg: none` come from.
import type { JWTVerifyGetKey, JWTVerifyOptions } from 'jose';
import type { JwtAuthOptions } from '../auth-options.js';

type Jose = typeof import('jose');

/** What verifying a JWT came to. */
export type JwtOutcome =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly reason: string }
  | { readonly ok: false; readonly unavailable: number };

/** The asymmetric algorithms accepted when none are named: a public key can never sign. */
export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
const ASYMMETRIC = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);
const SYMMETRIC = new Set(['HS256', 'HS384', 'HS512']);
/** Default leeway for `exp`, `nbf` and `iat` between this server's clock and the issuer's, in seconds. */
export const DEFAULT_JWT_CLOCK_TOLERANCE = 30;
const DEFAULT_MAX_LENGTH = 8192;
const DEFAULT_JWKS_TIMEOUT = 5_000;
const DEFAULT_JWKS_COOLDOWN = 30_000;
const DEFAULT_JWKS_MAX_AGE = 600_000;
const DEFAULT_RETRY_AFTER = 5;
/** Verified tokens kept, each until it expires; a bound so that a flood of valid tokens cannot grow it. */
const CACHE_SIZE = 10_000;

/** The reason classes a 401 names (RFC 6750 §3 error_description). None quotes the token or a claim. */
export const JWT_REASONS = {
  expired: 'the token has expired',
  notYetValid: 'the token is not valid yet',
  issuer: 'the token is from another issuer',
  audience: 'the token is for another audience',
  claims: 'the token lacks a required claim or has an invalid one',
  unknownKey: 'the key that signed the token is not known',
  algorithm: 'the algorithm of the token is not accepted',
  signature: 'the signature of the token does not verify',
  unsupported: 'the token has a critical header or a form this service does not support',
  malformed: 'the token is not a well-formed JWT',
  tooLong: 'the token is too long',
} as const;

/** What the verifier's key getter throws when the JWKS cannot be fetched: a 503, not a 401. */
class KeysUnavailable extends Error {}

/** The verifier of one configuration's JWTs. */
export interface JwtVerifier {
  /** Verifies `token` (any string: it is checked for the form of a JWT first). */
  verify(token: string): JwtOutcome | Promise<JwtOutcome>;
  /**
   * The outcome of `token` verified before and not expired since, else undefined. Nothing is checked
   * but that: the caller may ask before it has looked at the token at all.
   */
  verified(token: string): JwtOutcome | undefined;
}

/** Checks the options and returns the verifier. */
export function createJwtVerifier(options: JwtAuthOptions): JwtVerifier {
  if (options === null || typeof options !== 'object') throw new TypeError('auth.jwt must be an object');
  const issuer = checkNames(options.issuer, 'auth.jwt.issuer');
  const audience = checkNames(options.audience, 'auth.jwt.audience');
  if ((options.jwks === undefined) === (options.secret === undefined)) {
    throw new TypeError('auth.jwt needs either jwks (a URL or a JWK Set) or secret (for HS256/384/512), not both');
  }
  const algorithms = checkAlgorithms(options.algorithms, options.secret !== undefined);
  const clockTolerance = checkClockTolerance(options.clockTolerance);
  const maxLength = checkNumber(options.maxTokenLength, DEFAULT_MAX_LENGTH, 'auth.jwt.maxTokenLength', 65_536);
  const timeout = checkNumber(options.jwksTimeout, DEFAULT_JWKS_TIMEOUT, 'auth.jwt.jwksTimeout', 60_000);
  const cooldown = checkNumber(options.jwksCooldown, DEFAULT_JWKS_COOLDOWN, 'auth.jwt.jwksCooldown', 3_600_000);
  const maxAge = checkNumber(options.jwksMaxAge, DEFAULT_JWKS_MAX_AGE, 'auth.jwt.jwksMaxAge', 86_400_000);
  const retryAfter = checkNumber(options.retryAfter, DEFAULT_RETRY_AFTER, 'auth.jwt.retryAfter', 3600);
  if (!(retryAfter >= 1)) throw new TypeError('auth.jwt.retryAfter must be 1 second or more');
  const url = options.jwks === undefined ? undefined : checkJwks(options.jwks);
  const secret =
    options.secret === undefined
      ? undefined
      : typeof options.secret === 'string'
        ? new TextEncoder().encode(options.secret)
        : options.secret;
  if (secret !== undefined && !(secret instanceof Uint8Array && secret.byteLength >= 32)) {
    throw new TypeError('auth.jwt.secret must be at least 32 bytes (RFC 7518 §3.2: a key as long as the hash)');
  }

  const verifyOptions: JWTVerifyOptions = {
    issuer: issuer.length === 1 ? issuer[0]! : [...issuer],
    audience: audience.length === 1 ? audience[0]! : [...audience],
    algorithms: [...algorithms],
    clockTolerance,
    requiredClaims: ['exp'],
  };
  // Loaded once, and only by an app that accepts JWTs: the mocks and browsers never fetch jose.
  let jose: Promise<Jose> | undefined;
  const joseOf = (): Promise<Jose> => {
    jose ??= import('jose');
    return jose;
  };
  // What verifies a signature: the secret, or a getter of the JWKS's keys.
  let verificationKey: Promise<JWTVerifyGetKey | Uint8Array> | undefined;
  const verificationKeyOf = (): Promise<JWTVerifyGetKey | Uint8Array> => {
    verificationKey ??= joseOf().then((lib) => {
      if (secret !== undefined) return secret;
      if (url === undefined) return lib.createLocalJWKSet(options.jwks as Parameters<Jose['createLocalJWKSet']>[0]);
      return remoteKeys(lib, url, { timeout, cooldown, maxAge });
    });
    return verificationKey;
  };
  // Fail fast on a JWK Set that jose refuses, rather than on the first request.
  if (url === undefined && secret === undefined) verificationKeyOf().catch(() => undefined);

  // Verified tokens, found by the end of their signature and then compared whole: hashing a few
  // characters rather than a whole token (hundreds of characters, a new string on every request)
  // is most of what a cached check costs. Another token with the same ending is simply a miss.
  const verifiedByTail = new Map<
    string,
    { readonly token: string; readonly until: number; readonly outcome: JwtOutcome }
  >();
  const tailOf = (token: string): string => token.slice(-TAIL);
  // After a failed JWKS fetch, answer 503 at once until this time, rather than wait on every request.
  let unavailableUntil = 0;

  async function verify(token: string): Promise<JwtOutcome> {
    const wait = unavailableUntil - Date.now();
    if (wait > 0) return { ok: false, unavailable: Math.max(1, Math.ceil(wait / 1000)) };
    const lib = await joseOf();
    try {
      const { payload } = await lib.jwtVerify(token, (await verificationKeyOf()) as JWTVerifyGetKey, verifyOptions);
      const outcome: JwtOutcome = {
        ok: true,
        key: `jwt:${payload.iss ?? ''}:${payload.sub ?? ''}`,
      };
      if (verifiedByTail.size >= CACHE_SIZE) verifiedByTail.delete(verifiedByTail.keys().next().value!);
      // `exp` is required, so every verified token has an end; no leeway added to what is cached.
      verifiedByTail.set(tailOf(token), { token, until: (payload.exp ?? 0) * 1000, outcome });
      return outcome;
    } catch (error) {
      if (error instanceof KeysUnavailable) {
        unavailableUntil = Date.now() + retryAfter * 1000;
        return { ok: false, unavailable: retryAfter };
      }
      return { ok: false, reason: reasonOf(error) };
    }
  }

  // A token verified before is accepted without a signature check until it expires: the cache holds
  // whole tokens, so a token differing in any byte is verified afresh.
  function cached(token: string): JwtOutcome | undefined {
    const entry = verifiedByTail.get(tailOf(token));
    if (entry === undefined || entry.token !== token) return undefined;
    if (entry.until > Date.now()) return entry.outcome;
    verifiedByTail.delete(tailOf(token));
    return undefined;
  }

  return {
    verified: cached,
    verify(token) {
      // First, since what it holds passed every check below.
      const hit = cached(token);
      if (hit !== undefined) return hit;
      if (token.length > maxLength) return { ok: false, reason: JWT_REASONS.tooLong };
      // A JWS in compact form is three base64url parts; anything else is no JWT (JWE is not accepted).
      if (!COMPACT_JWS.test(token)) return { ok: false, reason: JWT_REASONS.malformed };
      return verify(token);
    },
  };
}

/** Characters at the end of a token that find it in the cache. */
const TAIL = 16;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether `token` has the form of a JWS in compact serialization (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return COMPACT_JWS.test(token);
}

/**
 * The remote JWKS, through jose's cache (refetched after `maxAge`, and on an unknown `kid` once the
 * cooldown has passed). A fetch that fails becomes {@link KeysUnavailable}, unless the keys fetched
 * before hold the token's key: a provider that is down then costs nothing until its key rotates.
 */
function remoteKeys(
  lib: Jose,
  url: URL,
  { timeout, cooldown, maxAge }: { timeout: number; cooldown: number; maxAge: number },
): JWTVerifyGetKey {
  const remote = lib.createRemoteJWKSet(url, {
    timeoutDuration: timeout,
    cooldownDuration: cooldown,
    cacheMaxAge: maxAge,
  });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (isTokenFault(lib, error)) throw error;
      const cached = remote.jwks();
      if (cached !== undefined) {
        try {
          return await lib.createLocalJWKSet(cached)(header, token);
        } catch (inner) {
          if (!(inner instanceof lib.errors.JWKSNoMatchingKey)) throw inner;
        }
      }
      throw new KeysUnavailable('the JWKS cannot be fetched', { cause: error });
    }
  };
}

/** The errors of a JWKS lookup that are about the token, not the fetch. */
function isTokenFault(lib: Jose, error: unknown): boolean {
  const e = lib.errors;
  return (
    error instanceof e.JWKSNoMatchingKey ||
    error instanceof e.JWKSMultipleMatchingKeys ||
    error instanceof e.JOSEAlgNotAllowed ||
    error instanceof e.JOSENotSupported ||
    error instanceof e.JWSInvalid
  );
}

/** The reason class of a refused token, by jose's error code (stable across its majors). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return JWT_REASONS.expired;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as { claim?: unknown }).claim;
      if (claim === 'nbf' || (claim === 'iat' && (error as { reason?: unknown }).reason === 'check_failed'))
        return JWT_REASONS.notYetValid;
      if (claim === 'iss') return JWT_REASONS.issuer;
      if (claim === 'aud') return JWT_REASONS.audience;
      return JWT_REASONS.claims;
    }
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return JWT_REASONS.unknownKey;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return JWT_REASONS.algorithm;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return JWT_REASONS.signature;
    case 'ERR_JOSE_NOT_SUPPORTED':
      return JWT_REASONS.unsupported;
    default:
      return JWT_REASONS.malformed;
  }
}

function checkNames(value: string | readonly string[] | undefined, name: string): readonly string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((item) => typeof item !== 'string' || item === '')) {
    throw new TypeError(`${name} is required: a non-empty string, or a non-empty list of them`);
  }
  return list;
}

function checkAlgorithms(value: readonly string[] | undefined, withSecret: boolean): readonly string[] {
  if (value === undefined) {
    if (withSecret) throw new TypeError('auth.jwt.secret needs auth.jwt.algorithms: HS256, HS384 or HS512');
    return DEFAULT_JWT_ALGORITHMS;
  }
  if (!Array.isArray(value) || value.length === 0) throw new TypeError('auth.jwt.algorithms must be a non-empty list');
  for (const alg of value) {
    // `none` is never a choice: an unsigned token proves nothing (RFC 8725 §3.2).
    if (typeof alg !== 'string' || alg.toLowerCase() === 'none') {
      throw new TypeError('auth.jwt.algorithms: "none" is never accepted');
    }
    // A symmetric algorithm with public keys is the key confusion attack; an asymmetric one needs keys.
    if (withSecret ? !SYMMETRIC.has(alg) : !ASYMMETRIC.has(alg)) {
      throw new TypeError(
        withSecret
          ? `auth.jwt.algorithms: ${JSON.stringify(alg)} is not an HMAC algorithm (HS256, HS384, HS512), which a secret needs`
          : `auth.jwt.algorithms: ${JSON.stringify(alg)} is not one of ${[...ASYMMETRIC].join(', ')}; HS256/384/512 need a secret instead of a JWKS`,
      );
    }
  }
  return value;
}

/** `seconds` when it is a usable `auth.jwt.clockTolerance` (the default when undefined); a TypeError otherwise. */
export function checkClockTolerance(seconds: number | undefined): number {
  return checkNumber(seconds, DEFAULT_JWT_CLOCK_TOLERANCE, 'auth.jwt.clockTolerance', 3600);
}

/** The URL to fetch the keys from, or undefined for a JWK Set held in memory; a TypeError for anything else. */
export function checkJwks(jwks: NonNullable<JwtAuthOptions['jwks']>): URL | undefined {
  if (isJwkSet(jwks)) return undefined;
  const url = checkJwksUrl(jwks);
  if (url === undefined) throw new TypeError('auth.jwt.jwks must be an https URL or a JWK Set ({ keys: [...] })');
  return url;
}

function checkNumber(value: number | undefined, fallback: number, name: string, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be a number from 0 to ${max}`);
  }
  return value;
}

function isJwkSet(value: unknown): value is { keys: readonly object[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof URL) &&
    Array.isArray((value as { keys?: unknown }).keys)
  );
}

/**
 * The JWKS URL: https, or http to a loopback host only (a sidecar or a test's server on the same
 * machine), since keys fetched over plain http on a network can be replaced by anyone on the path.
 */
function checkJwksUrl(value: unknown): URL | undefined {
  if (!(typeof value === 'string' || value instanceof URL)) return undefined;
  if (!URL.canParse(String(value))) throw new TypeError('auth.jwt.jwks must be an https URL or a JWK Set');
  const url = new URL(String(value));
  const loopback =
    url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return url;
  throw new TypeError('auth.jwt.jwks must be an https URL (http only to localhost, 127.0.0.1 or [::1])');
}
