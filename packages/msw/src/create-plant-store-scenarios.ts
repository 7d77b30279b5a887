import { ErrorCode, type PlantStoreApp } from '@plant-store/core';
import { delay, http, HttpResponse, type HttpHandler } from 'msw';
import { errorResponse } from './internal/error-response.js';

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
 * service specification and DECISIONS.md give it, so client code sees exactly what production sends.
 */
export interface PlantStoreScenarios {
  /** 401 with a Bearer challenge: `40102` (token not accepted, the default) or `40101` (no credentials). */
  unauthorized(code?: UnauthorizedCode, options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40001`: the body is not JSON. */
  invalidJson(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40002`: the body is JSON but not a NewPlant; `message` names the field and rule. */
  invalidPlant(message?: string, options?: PlantStoreScenarioOptions): HttpHandler;
  /** 400 `40003`: the id is stored already with a different name or tag. */
  idConflict(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 413 `41301`: the body is over the limit. */
  bodyTooLarge(options?: PlantStoreScenarioOptions): HttpHandler;
  /** 500 `50001`: an unexpected fault, with the service's message that says nothing about internals. */
  internalError(options?: PlantStoreScenarioOptions): HttpHandler;
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

/** What each error code's default message says; written for a person, never naming internals. */
const DEFAULT_MESSAGES: { readonly [C in ErrorCode]: string } = {
  // The core's own wording, so a UI that shows `message` looks in tests as it will in production.
  40001: 'body must be valid JSON',
  40002: 'name must be a string',
  40003: 'id is stored already with a different name or tag',
  40101: 'an Authorization header with a Bearer token is required',
  40102: 'the bearer token is not accepted',
  40401: 'no such path; plants are created by POST /plants',
  40501: 'method not allowed; /plants answers POST',
  41301: 'body must be at most 1048576 bytes',
  41501: 'Content-Type must be application/json',
  // The reference server's HTTP layer answers these two (timeouts, oversized headers); the core never does.
  40801: 'the request was not received in time',
  43101: 'the request headers are over the size limit',
  50001: 'an unexpected error occurred; the request id identifies it in the server log',
};

/**
 * Builds the scenarios for one handler set. `createPlantUrl` is the URL the `createPlant` handler
 * matches; `app` answers the slow scenario once its delay is over.
 */
export function createPlantStoreScenarios(createPlantUrl: string, app: PlantStoreApp): PlantStoreScenarios {
  const answer = (code: ErrorCode, message: string | undefined, options: PlantStoreScenarioOptions | undefined) =>
    http.post(createPlantUrl, ({ request }) => errorResponse(request, code, message ?? DEFAULT_MESSAGES[code]), {
      once: options?.once ?? false,
    });
  return {
    unauthorized: (code = ErrorCode.INVALID_TOKEN, options) => answer(code, undefined, options),
    invalidJson: (options) => answer(ErrorCode.INVALID_JSON, undefined, options),
    invalidPlant: (message, options) => answer(ErrorCode.INVALID_PLANT, message, options),
    idConflict: (options) => answer(ErrorCode.ID_CONFLICT, undefined, options),
    bodyTooLarge: (options) => answer(ErrorCode.BODY_TOO_LARGE, undefined, options),
    internalError: (options) => answer(ErrorCode.INTERNAL_ERROR, undefined, options),
    error: (code, message, options) => answer(code, message, options),
    networkError: (options) =>
      http.post(createPlantUrl, () => HttpResponse.error(), { once: options?.once ?? false }),
    slow: (ms, options) =>
      http.post(
        createPlantUrl,
        async ({ request }) => {
          await delay(ms);
          return app.fetch(request);
        },
        { once: options?.once ?? false },
      ),
  };
}
