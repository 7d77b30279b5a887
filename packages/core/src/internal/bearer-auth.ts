// Bearer authentication (RFC 6750 §2.1, RFC 9110 §11) with the outcomes the service's rules name.

/** The credentials are accepted. */
export const AUTH_OK = 0;
/** No usable credentials: the 40101 answer. */
export const AUTH_MISSING = 40101;
/** A bearer token that is not accepted: the 40102 answer. */
export const AUTH_INVALID = 40102;
/** The result of judging an `Authorization` header: accepted, or the error code to answer. */
export type AuthOutcome = typeof AUTH_OK | typeof AUTH_MISSING | typeof AUTH_INVALID;

/**
 * token68 (RFC 9110 §11.2), the form of a bearer token (RFC 6750 §2.1 b64token). Anything else can
 * never be an accepted token, so it is refused before any comparison.
 */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Whether `value` is a well-formed token68. */
export function isToken68(value: string): boolean {
  return TOKEN68.test(value);
}

/**
 * Builds the check for the configured tokens. A list is compared in constant time; `'any'` accepts
 * every well-formed token (the mocks' default). There is no default: an empty or missing list is a
 * TypeError, so a server never accepts every token by accident (the service's rules, server defaults).
 */
export function createBearerCheck(tokens: readonly string[] | 'any'): (header: string | null) => AuthOutcome {
  if (tokens !== 'any') {
    if (!Array.isArray(tokens) || tokens.length === 0) {
      throw new TypeError('tokens must be a non-empty list of bearer tokens, or "any"');
    }
    for (const t of tokens) {
      if (typeof t !== 'string' || !isToken68(t)) {
        throw new TypeError('every token must be a non-empty token68 string (A-Z a-z 0-9 - . _ ~ + / then optional =)');
      }
    }
  }
  const encoder = new TextEncoder();
  const accepted = tokens === 'any' ? [] : tokens.map((t) => encoder.encode(t));

  return (header) => {
    if (header === null) return AUTH_MISSING;
    // RFC 9110 §11.1: the auth-scheme is case-insensitive; compared by char code to allocate nothing.
    if (header.length < 6 || !isBearerScheme(header)) return AUTH_MISSING;
    if (header.length > 6 && header.charCodeAt(6) !== 32) return AUTH_MISSING; // `Bearerx…` is another scheme
    let start = 7;
    while (start < header.length && header.charCodeAt(start) === 32) start++;
    if (start >= header.length) return AUTH_MISSING;
    const token = start === 7 ? header.slice(7) : header.slice(start);
    if (!TOKEN68.test(token)) return AUTH_INVALID;
    if (accepted.length === 0) return AUTH_OK;
    return matchesAny(token, accepted) ? AUTH_OK : AUTH_INVALID;
  };
}

/**
 * Builds the check of whether a caller's request id is a credential: what this request presents in its
 * `Authorization` header (whatever the scheme), or any configured token. Tokens are token68, which the
 * request-id filter lets through, and the id is echoed and logged (the service's rules: no token ever appears
 * in a response or a log). Configured tokens are compared in constant time, or the request id would be
 * a timing oracle for them beside the `Authorization` header.
 */
export function createCredentialCheck(
  tokens: readonly string[] | 'any',
): (value: string, authorization: string | null) => boolean {
  const encoder = new TextEncoder();
  const accepted = tokens === 'any' ? [] : tokens.map((t) => encoder.encode(t));
  return (value, authorization) => {
    if (authorization !== null && presentedCredentials(authorization) === value) return true;
    return accepted.length !== 0 && matchesAny(value, accepted);
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
 * Compares `token` with every accepted token without an early exit, so the time taken does not tell
 * an attacker how many leading bytes were right, nor which token came close. `token` is token68,
 * hence ASCII: its UTF-8 bytes are its char codes, and no encoding (nor node:crypto) is needed.
 */
function matchesAny(token: string, accepted: readonly Uint8Array[]): boolean {
  const n = token.length;
  let found = 0;
  for (let k = 0; k < accepted.length; k++) {
    const want = accepted[k]!;
    const m = want.length;
    // Lengths differ → mismatch, but still walk the presented token so the work depends on its length only.
    let diff = n ^ m;
    // j wraps around the accepted token; its pattern depends on the lengths only, never on a byte.
    for (let i = 0, j = 0; i < n; i++) {
      diff |= token.charCodeAt(i) ^ want[j]!;
      if (++j === m) j = 0;
    }
    found |= ((diff - 1) >>> 31) & 1;
  }
  return found === 1;
}
