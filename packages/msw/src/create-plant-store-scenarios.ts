import {
  createErrorResponse,
  ErrorCode,
  type ErrorResponseInit,
  type PlantStore,
  type PlantStoreApp,
} from '@plant-store/core';
import { delay, http, HttpResponse, type HttpHandler } from 'msw';

/** Options every scenario takes. */
export interface PlantStoreScenarioOptions {
  /**
   * Answer only the next matching request, then fall back to the handlers underneath (MSW's `once`).
   * Use it to test a retry: the first create fails, the second reaches the mock store.
   */
  readonly once?: boolean;
}

/** The `error` values of the 401 answers. */
export type UnauthorizedCode = typeof ErrorCode.MISSING_CREDENTIALS | typeof ErrorCode.INVALID_TOKEN;

/**
 * Ready-made `createPlant` answers for the paths a frontend must handle, each a single MSW handler to
 * pass to `server.use()` / `worker.use()`. Every failure has the status, headers and Error body the
 * service's rules give it, so client code sees exactly what production sends.
 */
export interface PlantStoreScenarios {
  /** 401 with a Bearer challenge: `40102` (token not accepted, the default) or `40101` (no credentials). */
  unauthorized(code?: UnauthorizedCode, options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40001`: the body is not JSON. */
  invalidJson(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40002`: the body is JSON but not a NewPlant; `message` names the field and rule. */
  invalidPlant(message?: string, options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40003`: the id is stored already with other fields (`CONFLICT_MESSAGE`). */
  idConflict(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 413 `41301`: the body is over the limit. */
  bodyTooLarge(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 500 `50001`: an unexpected fault, with the service's message that says nothing about internals. */
  internalError(options?: PlantStoreScenarioOptions): HttpHandler;
  /**
   * 503 `50301` with `Retry-After`: the store is unavailable (its database is down). The client retries
   * it by itself, after `retryAfter` seconds (default 1; 0 keeps a test fast); with `once`, the retry
   * then reaches the mock store.
   */
  storeUnavailable(options?: PlantStoreScenarioOptions & { readonly retryAfter?: number }): HttpHandler;
  /**
   * 429 `42901` with `Retry-After`: the credential is over the server's rate limit (or its address
   * failed authentication too often). The client retries it by itself after `retryAfter` seconds
   * (default 1; 0 keeps a test fast); with `once`, the retry then reaches the mock store.
   */
  rateLimited(options?: PlantStoreScenarioOptions & { readonly retryAfter?: number }): HttpHandler;
  /**
   * 503 `50302` with `Retry-After`: the server cannot check the token now (its identity provider's
   * keys cannot be fetched). Retried by the client like the store's 503.
   */
  authUnavailable(options?: PlantStoreScenarioOptions & { readonly retryAfter?: number }): HttpHandler;
  /** Any error code with its own status; `message` defaults to the service's wording for the code. */
  error(code: ErrorCode, message?: string, options?: PlantStoreScenarioOptions): HttpHandler;
  /** The connection fails: `fetch` rejects with a TypeError, as when the server is unreachable. */
  networkError(options?: PlantStoreScenarioOptions): HttpHandler;
  /**
   * The real answer, late: waits `ms` milliseconds (or forever with `"infinite"`, for time-out tests),
   * then lets the mock store answer as usual.
   */
  slow(ms: number | 'infinite', options?: PlantStoreScenarioOptions): HttpHandler;
}

/**
 * Builds the scenarios for one handler set. `createPlantUrl` is the URL the `createPlant` handler
 * matches; `app` answers the slow scenario once its delay is over; `settings` are the app's base path
 * and body limit, which the service's default 40401 and 41301 messages name.
 */
export function createPlantStoreScenarios(
  createPlantUrl: string,
  app: Pick<PlantStoreApp<PlantStore>, 'fetch'>,
  settings: Pick<ErrorResponseInit, 'basePath' | 'bodyLimit'>,
): PlantStoreScenarios {
  // The core builds the answer, so a scenario's status, headers and default wording are the service's.
  const answer = (
    code: ErrorCode,
    message: string | undefined,
    options: PlantStoreScenarioOptions | undefined,
    headers?: Record<string, string>,
  ) => {
    const init = headers === undefined ? settings : { ...settings, headers };
    // Built once now, so a code the spec does not define (or a message that is not a string) is a
    // TypeError where the scenario is written, not a 500 with a stack trace when a request comes.
    createErrorResponse(code, message, init);
    return http.post(createPlantUrl, ({ request }) => createErrorResponse(code, message, { ...init, request }), {
      once: options?.once ?? false,
    });
  };
  /** An answer with `Retry-After`, in whole seconds (default 1). */
  const retryLater = (
    name: string,
    code: ErrorCode,
    options: (PlantStoreScenarioOptions & { readonly retryAfter?: number }) | undefined,
  ) => {
    const retryAfter = options?.retryAfter ?? 1;
    if (!Number.isSafeInteger(retryAfter) || retryAfter < 0) {
      throw new TypeError(`${name}() takes retryAfter in whole seconds, 0 or more, got ${JSON.stringify(retryAfter)}`);
    }
    return answer(code, undefined, options, { 'retry-after': String(retryAfter) });
  };
  return {
    unauthorized: (code = ErrorCode.INVALID_TOKEN, options) => answer(code, undefined, options),
    invalidJson: (options) => answer(ErrorCode.INVALID_JSON, undefined, options),
    invalidPlant: (message, options) => answer(ErrorCode.INVALID_PLANT, message, options),
    idConflict: (options) => answer(ErrorCode.ID_CONFLICT, undefined, options),
    bodyTooLarge: (options) => answer(ErrorCode.BODY_TOO_LARGE, undefined, options),
    internalError: (options) => answer(ErrorCode.INTERNAL_ERROR, undefined, options),
    storeUnavailable: (options) => retryLater('storeUnavailable', ErrorCode.STORE_UNAVAILABLE, options),
    rateLimited: (options) => retryLater('rateLimited', ErrorCode.RATE_LIMITED, options),
    authUnavailable: (options) => retryLater('authUnavailable', ErrorCode.AUTH_UNAVAILABLE, options),
    error: (code, message, options) => answer(code, message, options),
    networkError: (options) => http.post(createPlantUrl, () => HttpResponse.error(), { once: options?.once ?? false }),
    slow: (ms, options) => {
      if (ms !== 'infinite' && !(typeof ms === 'number' && ms >= 0 && ms < 2 ** 31)) {
        throw new TypeError(`slow() takes milliseconds from 0 to 2^31-1 or "infinite", got ${JSON.stringify(ms)}`);
      }
      return http.post(
        createPlantUrl,
        async ({ request }) => {
          await delay(ms);
          return app.fetch(request);
        },
        { once: options?.once ?? false },
      );
    },
  };
}
