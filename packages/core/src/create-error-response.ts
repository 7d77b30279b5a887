import type { PlantStoreResponse } from './app-types.js';
import { checkBodyLimit, DEFAULT_BODY_LIMIT, normalizeBasePath } from './internal/app-options.js';
import { createCredentialCheck } from './internal/bearer-auth.js';
import { toWebResponse } from './internal/fetch-adapter.js';
import { generateRequestId, requestIdOf } from './internal/request-id.js';
import {
  CHALLENGE_INVALID,
  CHALLENGE_MISSING,
  defaultMessages,
  errorAnswer,
  JSON_TYPE,
  SAFETY_HEADERS,
} from './internal/responses.js';
import { ErrorCode, errorStatus } from './generated/error-codes.js';

/** Options of {@link createErrorResponse}. */
export interface ErrorResponseInit {
  /**
   * The request being answered. Its `X-Request-Id` comes back under the app's rules: kept when it is 1
   * to 128 plain characters and not the credentials the request presents, otherwise a generated id.
   */
  readonly request?: Request;
  /**
   * The caller's request id, in place of the one `request` carries; kept or replaced under the same
   * rules. Default: `request`'s, or a generated id.
   */
  readonly requestId?: string;
  /** The app's base path, which the default 40401 message names. Default: none. */
  readonly basePath?: string;
  /** The app's body limit in bytes, which the default 41301 message names. Default: 1 MiB. */
  readonly bodyLimit?: number;
  /** More headers (CORS, say), set after the app's own, so they may also replace one (`allow`). */
  readonly headers?: Readonly<Record<string, string>>;
}

// 'any' compares with the credentials a request presents only: no configured token is known here.
const isPresentedCredential = /* @__PURE__ */ createCredentialCheck('any') as (
  value: string,
  authorization: string | null,
) => boolean;

/**
 * The answer the plant store app gives for `code`, as a web `Response`: the code's status, the spec's
 * Error body, `Content-Type: application/json`, an `X-Request-Id`, the RFC 6750 challenge on 401s and
 * `Allow: POST` on 405s, `Retry-After: 1` on 429s and 503s, `Cache-Control: no-store` and
 * `X-Content-Type-Options: nosniff` (the service's rules, Failures). Built with the app's own builders and messages, so
 * a mock that answers with it cannot drift from the service. `message` defaults to the app's wording
 * for the code; 40801 and 43101, which only the reference server's HTTP layer sends, get its wording.
 * Throws a TypeError for a code the spec does not define.
 *
 * @example
 * // An MSW resolver that fails like the service does when the token is refused:
 * http.post('/api/plants', ({ request }) => createErrorResponse(ErrorCode.INVALID_TOKEN, undefined, { request }));
 */
export function createErrorResponse(code: ErrorCode, message?: string, init: ErrorResponseInit = {}): Response {
  const answer = errorResponseAnswer(code, message, init);
  if (init.headers === undefined) return toWebResponse(answer);
  // Through Headers, so that `Allow` replaces `allow` instead of being sent beside it.
  const merged = new Headers(answer.headers);
  for (const [name, value] of Object.entries(init.headers)) merged.set(name, value);
  return new Response(answer.body, { status: answer.status, headers: merged });
}

/**
 * What {@link createErrorResponse} answers, before it becomes a web `Response` and before
 * `init.headers` are merged in: the transport-neutral answer, with its `errorCode`.
 */
export function errorResponseAnswer(
  code: ErrorCode,
  message: string | undefined,
  init: ErrorResponseInit,
): PlantStoreResponse {
  // Own keys only, and numbers only: from plain JS, '40101' or 'toString' must not pass for a code.
  if (typeof code !== 'number' || !Object.hasOwn(errorStatus, code)) {
    throw new TypeError(`${String(code)} is not an error code of the plant store`);
  }
  if (message !== undefined && typeof message !== 'string') throw new TypeError('message must be a string when given');
  let text = message;
  if (text === undefined) {
    const plantsPath = normalizeBasePath(init.basePath) + '/plants';
    text = defaultMessages(plantsPath, checkBodyLimit(init.bodyLimit ?? DEFAULT_BODY_LIMIT))[code];
  }
  const request = init.request;
  const sent = init.requestId ?? request?.headers.get('x-request-id') ?? null;
  let requestId = requestIdOf(sent);
  if (requestId === sent && isPresentedCredential(requestId, request?.headers.get('authorization') ?? null)) {
    requestId = generateRequestId();
  }
  const headers: Record<string, string> = { ...SAFETY_HEADERS, 'content-type': JSON_TYPE, 'x-request-id': requestId };
  if (code === ErrorCode.MISSING_CREDENTIALS) headers['www-authenticate'] = CHALLENGE_MISSING;
  else if (code === ErrorCode.INVALID_TOKEN) headers['www-authenticate'] = CHALLENGE_INVALID;
  else if (code === ErrorCode.METHOD_NOT_ALLOWED) headers['allow'] = 'POST';
  else if (
    code === ErrorCode.STORE_UNAVAILABLE ||
    code === ErrorCode.RATE_LIMITED ||
    code === ErrorCode.AUTH_UNAVAILABLE
  )
    headers['retry-after'] = '1';
  const fixed = errorAnswer(code, text);
  return { status: fixed.status, headers, body: fixed.body, errorCode: fixed.code };
}
