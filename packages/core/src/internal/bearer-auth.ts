// Bearer authentication (RFC 6750 §2.1, RFC 9110 §11) with the outcomes the service's rules name.
import type { JwtAuthOptions } from '../auth-options.js';
import { compileEntries, ENTRIES, isTokenSet, type TokenEntries, type TokenSet } from '../token-set.js';
import { createJwtVerifier, type JwtOutcome, looksLikeJwt } from './jwt-verifier.js';
import { isToken68 } from './token68.js';

/** The credentials are accepted. */
export const AUTH_OK = 0;
/** No usable credentials: the 40101 answer. */
export const AUTH_MISSING = 40101;
/** A bearer token that is not accepted: the 40102 answer. */
export const AUTH_INVALID = 40102;
/** What judging the credentials of a request came to. */
export type AuthResult =
  /** Accepted; `key` names the credential for rate limits (a token entry, or a JWT's issuer and subject). */
  | { readonly outcome: typeof AUTH_OK; readonly key: string }
  | { readonly outcome: typeof AUTH_MISSING }
  /** `reason`: the RFC 6750 error_description, for a refused JWT. */
  | { readonly outcome: typeof AUTH_INVALID; readonly reason?: string }
  /** The token cannot be checked now (a JWKS that cannot be fetched): 503 after `retryAfter` seconds. */
  | { readonly outcome: typeof AUTH_UNAVAILABLE; readonly retryAfter: number };

/** The credentials cannot be checked now: the 50302 answer. */
export const AUTH_UNAVAILABLE = 50302;

const MISSING: AuthResult = { outcome: AUTH_MISSING };
const INVALID: AuthResult = { outcome: AUTH_INVALID };

/** The configured static tokens: a fixed list, a replaceable set, or `'any'`. */
export type TokenSource = readonly string[] | 'any' | TokenSet;

/**
 * Builds the check of a request's `Authorization` header against the configured tokens and, when
 * given, JWTs. Static tokens are compared in constant time; `'any'` accepts every well-formed token
 * (the mocks' default). There is no default: no tokens and no JWT is a TypeError, so a server never
 * accepts every token by accident (the service's rules, server defaults). The result is synchronous
 * for a plain token, so the common path pays no promise.
 */
export function createAuthenticator(
  tokens: TokenSource | undefined,
  jwt: JwtAuthOptions | undefined,
): (header: string | null) => AuthResult | Promise<AuthResult> {
  const any = tokens === 'any';
  if (tokens === undefined && jwt === undefined) {
    throw new TypeError('tokens must be a non-empty list of bearer tokens, or "any" (or give auth.jwt)');
  }
  const set = entriesOf(tokens);
  const verifyJwt = jwt === undefined ? undefined : createJwtVerifier(jwt);
  // One accepted result per entry, made once per generation of the set.
  let resultsFor: TokenEntries | undefined;
  let plainResults: AuthResult[] = [];
  let hashedResults: AuthResult[] = [];

  function resultOf(entries: TokenEntries, k: number, hashed: boolean): AuthResult {
    if (resultsFor !== entries) {
      resultsFor = entries;
      plainResults = entries.plain.map((e) => ({ outcome: AUTH_OK, key: e.key }));
      hashedResults = entries.hashed.map((e) => ({ outcome: AUTH_OK, key: e.key }));
    }
    return (hashed ? hashedResults : plainResults)[k]!;
  }

  /** The entry given by the SHA-256 of `token`, or `otherwise`. */
  async function matchHashed(token: string, entries: TokenEntries, otherwise: AuthResult): Promise<AuthResult> {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
    const k = matchIndex(digest, entries.hashed);
    return k === -1 ? otherwise : resultOf(entries, k, true);
  }

  return (header) => {
    const token = bearerTokenOf(header);
    if (token === AUTH_MISSING) return MISSING;
    // Read once: a replace() during this request does not change what it is judged against.
    const entries = set?.[ENTRIES];
    if (verifyJwt !== undefined && (entries === undefined || entries.plain.length === 0)) {
      // A JWT verified before is looked up before the token's form is checked: checking the form of
      // a token of hundreds of characters (twice, as token68 and as a JWS) costs more than the lookup.
      const hit = verifyJwt.verified(token);
      if (hit !== undefined) return jwtResult(hit);
    }
    if (!isToken68(token)) return INVALID;
    if (any) return { outcome: AUTH_OK, key: `token:${token}` };
    if (entries !== undefined && entries.plain.length > 0) {
      const k = matchIndex(token, entries.plain);
      if (k !== -1) return resultOf(entries, k, false);
    }
    const hashed = entries !== undefined && entries.hashed.length > 0 ? entries : undefined;
    // A JWT is judged before the hashed entries, so a token verified before answers synchronously
    // (from the verifier's cache) even where hashed entries are configured.
    if (verifyJwt !== undefined && (entries === undefined || looksLikeJwt(token))) {
      const outcome = verifyJwt.verify(token);
      if (hashed === undefined) return outcome instanceof Promise ? outcome.then(jwtResult) : jwtResult(outcome);
      // A refused JWT-shaped token may still be a static token given by its hash.
      const refused = (judged: JwtOutcome) =>
        judged.ok ? jwtResult(judged) : matchHashed(token, hashed, jwtResult(judged));
      return outcome instanceof Promise ? outcome.then(refused) : refused(outcome);
    }
    return hashed === undefined ? INVALID : matchHashed(token, hashed, INVALID);
  };
}

/** The configured entries, read through `[ENTRIES]` on every request (a set may be replaced); none for `'any'`. */
function entriesOf(tokens: TokenSource | undefined): { readonly [ENTRIES]: TokenEntries } | undefined {
  if (tokens === undefined || tokens === 'any') return undefined;
  if (isTokenSet(tokens)) return tokens;
  return { [ENTRIES]: compileEntries(tokens as readonly string[]) };
}

function jwtResult(outcome: JwtOutcome): AuthResult {
  if (outcome.ok) return { outcome: AUTH_OK, key: outcome.key };
  if ('unavailable' in outcome) return { outcome: AUTH_UNAVAILABLE, retryAfter: outcome.unavailable };
  return { outcome: AUTH_INVALID, reason: outcome.reason };
}

/** The bearer token of an `Authorization` value (its form not checked yet), or that there is none. */
function bearerTokenOf(header: string | null): string | typeof AUTH_MISSING {
  if (header === null) return AUTH_MISSING;
  // RFC 9110 §11.1: the auth-scheme is case-insensitive; compared by char code to allocate nothing.
  if (header.length < 6 || !isBearerScheme(header)) return AUTH_MISSING;
  if (header.length > 6 && header.charCodeAt(6) !== 32) return AUTH_MISSING; // `Bearerx…` is another scheme
  let start = 7;
  while (start < header.length && header.charCodeAt(start) === 32) start++;
  if (start >= header.length) return AUTH_MISSING;
  return start === 7 ? header.slice(7) : header.slice(start);
}

/**
 * Builds the check of whether a caller's request id is a credential: what this request presents in its
 * `Authorization` header (whatever the scheme), or any configured token. Tokens are token68, which the
 * request-id filter lets through, and the id is echoed and logged (the service's rules: no token ever appears
 * in a response or a log). Configured tokens are compared in constant time, or the request id would be
 * a timing oracle for them beside the `Authorization` header.
 */
export function createCredentialCheck(
  tokens: TokenSource | undefined,
): (value: string, authorization: string | null) => boolean | Promise<boolean> {
  const set = entriesOf(tokens);
  return (value, authorization) => {
    if (authorization !== null && presentedCredentials(authorization) === value) return true;
    const entries = set?.[ENTRIES];
    if (entries === undefined) return false;
    if (entries.plain.length > 0 && matchIndex(value, entries.plain) !== -1) return true;
    if (entries.hashed.length === 0 || !isToken68(value)) return false;
    return crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(value))
      .then((digest) => matchIndex(new Uint8Array(digest), entries.hashed) !== -1);
  };
}

/**
 * The credentials part of an `Authorization` value: what follows the scheme and its spaces, or the
 * whole value when it has no space (some clients send a bare token). The caller knows it already,
 * so a plain comparison with it leaks nothing.
 */
function presentedCredentials(header: string): string {
  let start = header.indexOf(' ');
  if (start === -1) return header;
  while (start < header.length && header.charCodeAt(start) === 32) start++;
  return header.slice(start);
}

/** Whether `header` starts with `bearer` in any case (ASCII letters OR 0x20 are lower case). */
function isBearerScheme(header: string): boolean {
  return (
    (header.charCodeAt(0) | 32) === 98 &&
    (header.charCodeAt(1) | 32) === 101 &&
    (header.charCodeAt(2) | 32) === 97 &&
    (header.charCodeAt(3) | 32) === 114 &&
    (header.charCodeAt(4) | 32) === 101 &&
    (header.charCodeAt(5) | 32) === 114
  );
}

/**
 * Compares `token` with every entry without an early exit, so the time taken does not tell an
 * attacker how many leading bytes were right, nor which entry came close. Returns the index of the
 * matching entry, or -1. `token` is token68 (hence ASCII: its UTF-8 bytes are its char codes, and no
 * encoding nor node:crypto is needed) or the bytes of a digest.
 */
function matchIndex(token: string | Uint8Array, entries: readonly { readonly bytes: Uint8Array }[]): number {
  const n = token.length;
  const text = typeof token === 'string' ? token : undefined;
  const bytes = typeof token === 'string' ? undefined : token;
  let found = -1;
  for (let k = 0; k < entries.length; k++) {
    const want = entries[k]!.bytes;
    const m = want.length;
    // Lengths differ → mismatch, but still walk the presented token so the work depends on its length only.
    let diff = n ^ m;
    // j wraps around the entry; its pattern depends on the lengths only, never on a byte.
    for (let i = 0, j = 0; i < n; i++) {
      diff |= (text !== undefined ? text.charCodeAt(i) : bytes![i]!) ^ want[j]!;
      if (++j === m) j = 0;
    }
    // All ones when diff is 0, else 0: the index is kept without a branch on the bytes.
    const equal = -(((diff - 1) >>> 31) & 1);
    found = (equal & k) | (~equal & found);
  }
  return found;
}
