// This file is generated from openapi.yaml by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

/** The `error` values of the spec's Error body, by name (the spec's Error.error, listed in its x-error-codes). */
export const ErrorCode = {
  /** HTTP 400: The body is not JSON (includes an empty body and invalid UTF-8). */
  INVALID_JSON: 40001,
  /** HTTP 400: The body is JSON but not a NewPlant. */
  INVALID_PLANT: 40002,
  /** HTTP 400: The id is stored already with a different name or tag. */
  ID_CONFLICT: 40003,
  /** HTTP 401: No usable credentials. */
  MISSING_CREDENTIALS: 40101,
  /** HTTP 401: A bearer token that is not accepted. */
  INVALID_TOKEN: 40102,
  /** HTTP 404: No such path. */
  NOT_FOUND: 40401,
  /** HTTP 405: Method not allowed on /plants. */
  METHOD_NOT_ALLOWED: 40501,
  /** HTTP 413: The body is over the limit. */
  BODY_TOO_LARGE: 41301,
  /** HTTP 415: The media type is not JSON. */
  UNSUPPORTED_MEDIA_TYPE: 41501,
  /** HTTP 408: The request did not arrive within the server's timeouts (answered by the server's HTTP layer). */
  REQUEST_TIMEOUT: 40801,
  /** HTTP 431: The request headers are over the server's limit (answered by the server's HTTP layer). */
  HEADERS_TOO_LARGE: 43101,
  /** HTTP 500: An unexpected fault. */
  INTERNAL_ERROR: 50001,
  /** HTTP 503: The store is unavailable; nothing was acknowledged, retry after Retry-After. */
  STORE_UNAVAILABLE: 50301,
  /** HTTP 429: Too many requests for this credential, or too many failed authentications from this client address; retry after Retry-After. */
  RATE_LIMITED: 42901,
  /** HTTP 503: The bearer token cannot be checked now (the identity provider's keys cannot be fetched); retry after Retry-After. */
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
