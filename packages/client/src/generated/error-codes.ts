// This file is generated from openapi.yaml by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

/** The `error` values of the spec's Error body, by name (the spec's Error.error, listed in its x-error-codes). */
export const ErrorCode = {
  /** HTTP 400: The body is not JSON: empty, not UTF-8 (never decoded with U+FFFD in place of a bad byte), or not valid JSON. The reference server also answers it to a request its HTTP parser cannot read (bad framing, an HTTP/1.1 request without `Host`). */
  INVALID_JSON: 40001,
  /** HTTP 400: The body is JSON but not a NewPlant: not an object, a required field missing, or a field outside its schema (type, bounds, length, pattern, enum). The message names the field and the rule; the first field at fault, in NewPlant's order, is the one named. */
  INVALID_PLANT: 40002,
  /** HTTP 400: The id is stored already with a different value of another field, and nothing changed. The same id with every field the same is a replay, answered 200. */
  ID_CONFLICT: 40003,
  /** HTTP 401: No usable credentials: no `Authorization` header, another scheme, or `Bearer` with no token. */
  MISSING_CREDENTIALS: 40101,
  /** HTTP 401: A bearer token that is not accepted, or not a well-formed token68; for a refused JWT the message names the reason (expired, another issuer, …). */
  INVALID_TOKEN: 40102,
  /** HTTP 404: No such path: any path but `{base}/plants`, compared exactly (`/plants/` and `/Plants` are other paths). */
  NOT_FOUND: 40401,
  /** HTTP 405: A method other than `POST` on `/plants` (`OPTIONS` too while CORS is off); the answer carries `Allow: POST` (`POST, OPTIONS` with CORS on). */
  METHOD_NOT_ALLOWED: 40501,
  /** HTTP 413: The body is over the limit (1 MiB by default): by its declared `Content-Length`, answered before the body is read, or while it streams. */
  BODY_TOO_LARGE: 41301,
  /** HTTP 415: `Content-Type` is missing or not JSON: `application/json` in any case, with no parameter but `charset=utf-8`. */
  UNSUPPORTED_MEDIA_TYPE: 41501,
  /** HTTP 408: The request did not arrive within the server's timeouts (the headers within 10 s, the whole request within 30 s, by default); answered by the server's HTTP layer. */
  REQUEST_TIMEOUT: 40801,
  /** HTTP 431: The request line and headers are over the server's limit (16 KiB); answered by the server's HTTP layer. */
  HEADERS_TOO_LARGE: 43101,
  /** HTTP 500: An unexpected fault, such as a failing store; the message says nothing about internals. */
  INTERNAL_ERROR: 50001,
  /** HTTP 503: The store cannot answer now (its database is unreachable, a statement timed out, or a write's outcome is unknown); nothing was acknowledged. */
  STORE_UNAVAILABLE: 50301,
  /** HTTP 429: Too many requests for this credential, or too many failed authentications from this client address (only where the server sets those limits); nothing was stored. */
  RATE_LIMITED: 42901,
  /** HTTP 503: A JWT cannot be checked now: the identity provider's keys cannot be fetched and the token's key is not cached; nothing was stored. */
  AUTH_UNAVAILABLE: 50302,
} as const;

/** One of the `error` values the service answers with. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP status that goes with each error code. */
export const errorStatus: { readonly [C in ErrorCode]: number } = {
  40001: 400,
  40002: 400,
  40003: 400,
  40101: 401,
  40102: 401,
  40401: 404,
  40501: 405,
  41301: 413,
  41501: 415,
  40801: 408,
  43101: 431,
  50001: 500,
  50301: 503,
  42901: 429,
  50302: 503,
};

/** Every code, for a membership check that needs no statuses (the client's, in its browser bundle). */
export const errorCodes: readonly ErrorCode[] = [40001, 40002, 40003, 40101, 40102, 40401, 40501, 41301, 41501, 40801, 43101, 50001, 50301, 42901, 50302];
