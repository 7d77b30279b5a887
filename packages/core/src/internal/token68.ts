// The form of a bearer token. A leaf, so that token sets and the bearer check share it without
// importing each other.

/**
 * token68 (RFC 9110 §11.2), the form of a bearer token (RFC 6750 §2.1 b64token). Anything else can
 * never be an accepted token, so it is refused before any comparison.
 */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Whether `value` is a well-formed token68. */
export function isToken68(value: string): boolean {
  return TOKEN68.test(value);
}
