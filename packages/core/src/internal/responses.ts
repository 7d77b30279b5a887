// Fixed answers, built once per application so that failures cost a string lookup, not a stringify.
import { ErrorCode, errorStatus } from '../generated/error-codes.js';
import { CONFLICT_MESSAGE, PLANT_MESSAGES } from '../generated/plant-shape.js';

/** The media type of every answer with a body. */
export const JSON_TYPE = 'application/json';

/**
 * On every answer: no cache (shared or private) keeps an answer to one caller's credentials, and no
 * browser sniffs a JSON body into something it would render or run.
 */
export const SAFETY_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;

/** The spec's Error body for `code` with `message`, as JSON text. */
export function errorBody(code: number, message: string): string {
  return JSON.stringify({ error: code, message });
}

/** RFC 6750 §3 challenge of a request without usable credentials (no error attribute: none was tried). */
export const CHALLENGE_MISSING = 'Bearer realm="plant-store"';
/** RFC 6750 §3.1 challenge of a refused token. */
export const CHALLENGE_INVALID = 'Bearer realm="plant-store", error="invalid_token"';

/** The challenge of a refused token with the reason class (RFC 6750 §3 error_description); never the token. */
export function challengeWithReason(reason: string): string {
  return `${CHALLENGE_INVALID}, error_description="${reason}"`;
}

/** The messages of the fixed failures. None repeats request data (the service's rules, Failures). */
export const MESSAGES = {
  emptyBody: 'body is empty; it must be a JSON NewPlant object',
  notUtf8: 'body must be JSON encoded as UTF-8',
  notJson: 'body must be valid JSON',
  conflict: CONFLICT_MESSAGE,
  missingCredentials: 'an Authorization header with a Bearer token is required',
  invalidToken: 'the bearer token is not accepted',
  methodNotAllowed: 'method not allowed; /plants answers POST',
  mediaType: 'Content-Type must be application/json',
  internal: 'an unexpected error occurred; the request id identifies it in the server log',
  unavailable: 'the store is unavailable; nothing was stored, retry later',
  rateLimited: 'too many requests; nothing was stored, retry after Retry-After',
  authUnavailable: 'the bearer token cannot be checked now; nothing was stored, retry after Retry-After',
  // The reference server's HTTP layer answers these two (timeouts, oversized headers), building its
  // answers through createErrorResponse so this is the only wording; the app itself never does.
  requestTimeout: 'the request was not received in time',
  headersTooLarge: 'the request headers are over the size limit',
} as const;

/** The 40401 message, which names where plants are created. */
function notFoundMessage(plantsPath: string): string {
  return `no such path; plants are created by POST ${plantsPath}`;
}

/** The 41301 message, which names the limit. */
function tooLargeMessage(limit: number): string {
  return `body must be at most ${limit} bytes`;
}

/**
 * One message per code, one the app answers with (40001 and 40002 have several; these are the ones
 * the mocks have always said): what createErrorResponse says when it is given no message.
 */
export function defaultMessages(plantsPath: string, limit: number): { readonly [C in ErrorCode]: string } {
  return {
    40001: MESSAGES.notJson,
    40002: PLANT_MESSAGES.nameInvalid,
    40003: MESSAGES.conflict,
    40101: MESSAGES.missingCredentials,
    40102: MESSAGES.invalidToken,
    40401: notFoundMessage(plantsPath),
    40501: MESSAGES.methodNotAllowed,
    41301: tooLargeMessage(limit),
    41501: MESSAGES.mediaType,
    40801: MESSAGES.requestTimeout,
    43101: MESSAGES.headersTooLarge,
    50001: MESSAGES.internal,
    50301: MESSAGES.unavailable,
    42901: MESSAGES.rateLimited,
    50302: MESSAGES.authUnavailable,
  };
}

/** One Error answer's parts that do not depend on the request: its status, code and body text. */
export interface ErrorAnswer {
  readonly status: number;
  readonly code: ErrorCode;
  readonly body: string;
}

/** The Error answer for `code` with `message`; its status is the one the spec pairs with the code. */
export function errorAnswer(code: ErrorCode, message: string): ErrorAnswer {
  return { status: errorStatus[code], code, body: errorBody(code, message) };
}

/** Every fixed Error answer of one application. */
export interface FixedAnswers {
  readonly emptyBody: ErrorAnswer;
  readonly notUtf8: ErrorAnswer;
  readonly notJson: ErrorAnswer;
  readonly conflict: ErrorAnswer;
  readonly missingCredentials: ErrorAnswer;
  readonly invalidToken: ErrorAnswer;
  readonly notFound: ErrorAnswer;
  readonly methodNotAllowed: ErrorAnswer;
  readonly tooLarge: ErrorAnswer;
  readonly mediaType: ErrorAnswer;
  readonly internal: ErrorAnswer;
  readonly unavailable: ErrorAnswer;
  readonly rateLimited: ErrorAnswer;
  readonly authUnavailable: ErrorAnswer;
}

/** Builds the fixed answers for an application mounted at `plantsPath` with body limit `limit`. */
export function fixedAnswers(plantsPath: string, limit: number): FixedAnswers {
  return {
    emptyBody: errorAnswer(ErrorCode.INVALID_JSON, MESSAGES.emptyBody),
    notUtf8: errorAnswer(ErrorCode.INVALID_JSON, MESSAGES.notUtf8),
    notJson: errorAnswer(ErrorCode.INVALID_JSON, MESSAGES.notJson),
    conflict: errorAnswer(ErrorCode.ID_CONFLICT, MESSAGES.conflict),
    missingCredentials: errorAnswer(ErrorCode.MISSING_CREDENTIALS, MESSAGES.missingCredentials),
    invalidToken: errorAnswer(ErrorCode.INVALID_TOKEN, MESSAGES.invalidToken),
    notFound: errorAnswer(ErrorCode.NOT_FOUND, notFoundMessage(plantsPath)),
    methodNotAllowed: errorAnswer(ErrorCode.METHOD_NOT_ALLOWED, MESSAGES.methodNotAllowed),
    tooLarge: errorAnswer(ErrorCode.BODY_TOO_LARGE, tooLargeMessage(limit)),
    mediaType: errorAnswer(ErrorCode.UNSUPPORTED_MEDIA_TYPE, MESSAGES.mediaType),
    internal: errorAnswer(ErrorCode.INTERNAL_ERROR, MESSAGES.internal),
    unavailable: errorAnswer(ErrorCode.STORE_UNAVAILABLE, MESSAGES.unavailable),
    rateLimited: errorAnswer(ErrorCode.RATE_LIMITED, MESSAGES.rateLimited),
    authUnavailable: errorAnswer(ErrorCode.AUTH_UNAVAILABLE, MESSAGES.authUnavailable),
  };
}
