import type {
  InsertOutcome,
  PlantStoreApp,
  PlantStoreAppOptions,
  PlantStoreRequest,
  PlantStoreResponse,
} from './app-types.js';
import { createMemoryStore, synchronousInsertOf, type MemoryStore } from './memory-store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import type { InsertResult, PlantStore, StoredPlant } from './store.js';
import {
  AUTH_MISSING,
  AUTH_OK,
  AUTH_UNAVAILABLE,
  type AuthResult,
  createAuthenticator,
  createCredentialCheck,
} from './internal/bearer-auth.js';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, DEFAULT_CORS_MAX_AGE, createOriginCheck } from './internal/cors.js';
import { fromWebRequest, toWebResponse } from './internal/fetch-adapter.js';
import { checkBodyLimit, DEFAULT_BODY_LIMIT, normalizeBasePath } from './internal/app-options.js';
import { declaredLength, isJsonMediaType } from './internal/media-type.js';
import { type Otel, registeredOtel } from './internal/otel.js';
import { traceInsert, traceRequest } from './internal/request-span.js';
import { readNewPlant, samePlant, writePlant } from './generated/plant-codec.js';
import { PLANT_MESSAGES } from './generated/plant-shape.js';
import { checkRateLimit, RateLimiter } from './internal/rate-limiter.js';
import { generateRequestId, requestIdOf } from './internal/request-id.js';
import {
  CHALLENGE_INVALID,
  CHALLENGE_MISSING,
  challengeWithReason,
  type ErrorAnswer,
  errorAnswer,
  fixedAnswers,
  JSON_TYPE,
  MESSAGES,
  SAFETY_HEADERS,
} from './internal/responses.js';
import { ErrorCode } from './generated/error-codes.js';

export { DEFAULT_BODY_LIMIT, DEFAULT_CORS_MAX_AGE };
export { DEFAULT_JWT_ALGORITHMS, DEFAULT_JWT_CLOCK_TOLERANCE } from './internal/jwt-verifier.js';

/**
 * Builds the plant store as one fetch-shaped application: `POST {basePath}/plants` with every rule of
 * the service's rules (authentication, media type, body limit, exact int64 ids, idempotent creates, CORS,
 * request ids, JSON errors). No runtime-specific API is used, so the same code answers in Node, in
 * browsers (the MSW mocks) and in edge runtimes.
 *
 * Paths are compared exactly, after the query string is dropped: `/plants/` and `/Plants` are other
 * paths (404). Throws a TypeError when the options are unusable (no tokens, a bad limit or base path).
 *
 * @example
 * const app = createPlantStoreApp({ tokens: ['s3cret'], basePath: '/api' });
 * const res = await app.fetch(new Request('http://localhost/api/plants', {
 *   method: 'POST',
 *   headers: { authorization: 'Bearer s3cret', 'content-type': 'application/json' },
 *   body: '{"id":1,"name":"Fern"}',
 * }));
 * await res.json(); // { name: 'Fern' }
 */
export function createPlantStoreApp<S extends PlantStore = MemoryStore>(
  options: PlantStoreAppOptions<S>,
): PlantStoreApp<S> {
  if (options === null || typeof options !== 'object')
    throw new TypeError('options are required (at least { tokens })');
  const auth = options.auth ?? {};
  if (auth === null || typeof auth !== 'object') throw new TypeError('auth must be an object');
  const authenticate = createAuthenticator(options.tokens, auth.jwt);
  const isCredential = createCredentialCheck(options.tokens);
  const perCredential =
    auth.rateLimit === undefined ? undefined : new RateLimiter(checkRateLimit(auth.rateLimit, 'auth.rateLimit'));
  const perAddress =
    auth.failedAuthLimit === undefined
      ? undefined
      : new RateLimiter(checkRateLimit(auth.failedAuthLimit, 'auth.failedAuthLimit'));
  // Without a store option S is its default, MemoryStore: the cast is what that default means.
  const store = options.store ?? (createMemoryStore() as unknown as S);
  const basePath = normalizeBasePath(options.basePath);
  const plantsPath = basePath + '/plants';
  const limit = checkBodyLimit(options.bodyLimit ?? DEFAULT_BODY_LIMIT);
  const onError = options.onError;
  const onInsert = options.onInsert;
  if (onInsert !== undefined && typeof onInsert !== 'function') throw new TypeError('onInsert must be a function');
  // A failing metrics hook must not turn a stored plant into a 500, nor hide the store's own error.
  const observeInsert = (outcome: InsertOutcome, started: number): void => {
    try {
      onInsert!(outcome, (performance.now() - started) / 1000);
    } catch {
      // Ignored, as above.
    }
  };
  const cors = options.cors;
  const originAllowed = cors === undefined ? undefined : createOriginCheck(cors);
  const maxAgeSeconds = cors?.maxAge ?? DEFAULT_CORS_MAX_AGE;
  if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 0)
    throw new TypeError('cors.maxAge must be a whole number of seconds, 0 or more');
  const maxAge = String(maxAgeSeconds);
  const allow = cors === undefined ? 'POST' : 'POST, OPTIONS';
  const answers = fixedAnswers(plantsPath, limit);
  const plantErrorAnswers = new Map(
    Object.values(PLANT_MESSAGES).map((m) => [m, errorAnswer(ErrorCode.INVALID_PLANT, m)]),
  );
  // fatal: invalid UTF-8 is a 40001, never silently replaced by U+FFFD (the service's rules, Failures).
  const utf8 = new TextDecoder('utf-8', { fatal: true });

  /** The 40102 answers that name the reason a JWT was refused, made once per reason class. */
  const reasonAnswers = new Map<string, ErrorAnswer>();
  const invalidTokenAnswer = (reason: string): ErrorAnswer => {
    let answer = reasonAnswers.get(reason);
    if (answer === undefined) {
      answer = errorAnswer(ErrorCode.INVALID_TOKEN, `${MESSAGES.invalidToken}: ${reason}`);
      reasonAnswers.set(reason, answer);
    }
    return answer;
  };

  /** Headers of a JSON answer: content type, request id, and the CORS headers the origin earns. */
  function jsonHeaders(requestId: string, origin: string | null): Record<string, string> {
    if (originAllowed === undefined) {
      return {
        'content-type': JSON_TYPE,
        'x-request-id': requestId,
        'cache-control': SAFETY_HEADERS['cache-control'],
        'x-content-type-options': SAFETY_HEADERS['x-content-type-options'],
      };
    }
    const headers: Record<string, string> = {
      'content-type': JSON_TYPE,
      'x-request-id': requestId,
      'cache-control': SAFETY_HEADERS['cache-control'],
      'x-content-type-options': SAFETY_HEADERS['x-content-type-options'],
      vary: 'Origin',
    };
    if (origin !== null) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS;
    }
    return headers;
  }

  /** An Error answer: the fixed parts, and the headers of this request. */
  function fail(answer: ErrorAnswer, requestId: string, origin: string | null): PlantStoreResponse {
    return {
      status: answer.status,
      headers: jsonHeaders(requestId, origin),
      body: answer.body,
      errorCode: answer.code,
    };
  }

  function unauthorized(answer: ErrorAnswer, challenge: string, requestId: string, origin: string | null) {
    const response = fail(answer, requestId, origin);
    response.headers['www-authenticate'] = challenge;
    return response;
  }

  /** OPTIONS on /plants with CORS on: a preflight from an allowed origin, or a plain OPTIONS. */
  function answerOptions(request: PlantStoreRequest, requestId: string, origin: string | null): PlantStoreResponse {
    const headers: Record<string, string> = { ...SAFETY_HEADERS, 'x-request-id': requestId, allow, vary: 'Origin' };
    if (origin !== null) {
      headers['access-control-allow-origin'] = origin;
      headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS;
      if (request.header('access-control-request-method') !== null) {
        headers['access-control-allow-methods'] = 'POST';
        headers['access-control-allow-headers'] = CORS_ALLOW_HEADERS;
        headers['access-control-max-age'] = maxAge;
      }
    }
    return { status: 204, headers, body: '' };
  }

  function retryLater(answer: ErrorAnswer, seconds: number, requestId: string, origin: string | null) {
    const response = fail(answer, requestId, origin);
    response.headers['retry-after'] = String(seconds);
    return response;
  }

  /** The answer to credentials that were not accepted, counting a refused token against its address. */
  function refuse(result: AuthResult, request: PlantStoreRequest, requestId: string, origin: string | null) {
    if (result.outcome === AUTH_MISSING)
      return unauthorized(answers.missingCredentials, CHALLENGE_MISSING, requestId, origin);
    if (result.outcome === AUTH_UNAVAILABLE)
      return retryLater(answers.authUnavailable, result.retryAfter, requestId, origin);
    const address = request.clientAddress;
    if (perAddress !== undefined && address !== undefined) perAddress.take(address);
    const reason = result.outcome === AUTH_OK ? undefined : result.reason;
    return reason === undefined
      ? unauthorized(answers.invalidToken, CHALLENGE_INVALID, requestId, origin)
      : unauthorized(invalidTokenAnswer(reason), challengeWithReason(reason), requestId, origin);
  }

  /** Answers one request (inside its span, when tracing is on: `otel`). */
  async function answer(request: PlantStoreRequest, otel: Otel | undefined): Promise<PlantStoreResponse> {
    let requestId = '';
    let origin: string | null = null;
    try {
      const sentId = request.header('x-request-id');
      requestId = requestIdOf(sentId);
      // A client that sends its own token as its request id must not get it echoed or logged
      // (the service's rules: no token in a response or a log). Compared only when the caller's id is kept,
      // so requests without one pay nothing.
      if (requestId === sentId) {
        const isToken = isCredential(requestId, request.header('authorization'));
        if (isToken === true || (isToken !== false && (await isToken))) requestId = generateRequestId();
      }
      if (originAllowed !== undefined) {
        const sentOrigin = request.header('origin');
        if (sentOrigin !== null && originAllowed(sentOrigin)) origin = sentOrigin;
      }
      if (request.path !== plantsPath) return fail(answers.notFound, requestId, origin);
      const method = request.method;
      if (method !== 'POST') {
        if (method === 'OPTIONS' && originAllowed !== undefined) return answerOptions(request, requestId, origin);
        const response = fail(answers.methodNotAllowed, requestId, origin);
        response.headers.allow = allow;
        return response;
      }

      // Authentication before anything about the body (the service's rules): a refused request has no effect
      // and learns nothing about validation.
      // An address over its failed-authentication limit is refused before its token is judged, so
      // guessing cannot go on at the limit's pace with the answers as an oracle.
      if (perAddress !== undefined) {
        const address = request.clientAddress;
        const wait = address === undefined ? 0 : perAddress.peek(address);
        if (wait > 0) return retryLater(answers.rateLimited, wait, requestId, origin);
      }
      const checked = authenticate(request.header('authorization'));
      const credential = checked instanceof Promise ? await checked : checked;
      if (credential.outcome !== AUTH_OK) return refuse(credential, request, requestId, origin);
      if (perCredential !== undefined) {
        const wait = perCredential.take(credential.key);
        if (wait > 0) return retryLater(answers.rateLimited, wait, requestId, origin);
      }
      if (!isJsonMediaType(request.header('content-type'))) return fail(answers.mediaType, requestId, origin);
      // A declared length over the limit is refused before a byte is read (no buffering an attacker's upload).
      if (declaredLength(request.header('content-length')) > limit) return fail(answers.tooLarge, requestId, origin);
      const bytes = await request.readBody(limit);
      if (bytes === null) return fail(answers.tooLarge, requestId, origin);
      if (bytes.byteLength === 0) return fail(answers.emptyBody, requestId, origin);

      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        return fail(answers.notUtf8, requestId, origin);
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // JSON.parse's own message quotes the body: never passed on.
        return fail(text.trim() === '' ? answers.emptyBody : answers.notJson, requestId, origin);
      }
      const plant = readNewPlant(value, text);
      if (typeof plant === 'string') return fail(plantErrorAnswers.get(plant)!, requestId, origin);

      const insertNow = synchronousInsertOf(store.insert);
      const started = onInsert === undefined ? 0 : performance.now();
      let result: InsertResult;
      try {
        if (otel !== undefined) result = await traceInsert(otel, () => store.insert(plant));
        else result = insertNow !== undefined ? insertNow(plant) : await store.insert(plant);
      } catch (error) {
        if (onInsert !== undefined) observeInsert('error', started);
        throw error;
      }
      if (onInsert !== undefined) observeInsert(result.created ? 'created' : 'existing', started);
      let stored: StoredPlant = plant;
      if (!result.created) {
        stored = result.existing;
        // Idempotency by id: every field the same (absent and absent, or equal) replays the 200.
        if (!samePlant(stored, plant)) return fail(answers.conflict, requestId, origin);
      }
      return { status: 200, headers: jsonHeaders(requestId, origin), body: writePlant(stored) };
    } catch (error) {
      if (requestId === '') requestId = generateRequestId();
      if (onError !== undefined) {
        try {
          onError(error, requestId);
        } catch {
          // A failing logger must not turn a 500 into an unanswered request.
        }
      }
      if (StoreUnavailableError.is(error)) {
        // Not a fault of the service: the client retries after Retry-After, and idempotency by id
        // makes that safe whether or not the write it never heard back from was committed.
        return retryLater(answers.unavailable, error.retryAfter, requestId, origin);
      }
      return fail(answers.internal, requestId, origin);
    }
  }

  const traced = (request: PlantStoreRequest, otel: Otel) =>
    traceRequest(otel, request, plantsPath, (r) => answer(r, otel));
  /** With no OpenTelemetry SDK registered, one property read and the answer. */
  function handle(request: PlantStoreRequest): Promise<PlantStoreResponse> {
    const otel = registeredOtel();
    return otel === undefined ? answer(request, undefined) : traced(request, otel);
  }

  return {
    handle,
    async fetch(request, info) {
      return toWebResponse(await handle(fromWebRequest(request, info?.clientAddress)));
    },
    store,
    basePath,
  };
}
