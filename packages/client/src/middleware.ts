// openapi-fetch's middleware as the client's options take it: the shape of openapi-fetch's own
// `Middleware` type (test/middleware.test-d.ts checks that each is assignable to the other), declared
// here because the declarations of that type import packages that a consumer of this one does not
// have: openapi-fetch is bundled into the client, not one of its dependencies.

/** What every callback of a {@link Middleware} is given (openapi-fetch's `MiddlewareCallbackParams`). */
export interface MiddlewareCallbackParams {
  /** The attempt's Request: every attempt, a retry or the one with a refreshed token, has its own. */
  request: Request;
  /** The spec's path of the operation: `/plants`. */
  readonly schemaPath: string;
  /** The operation's OpenAPI parameters (a create has none). */
  readonly params: {
    query?: Record<string, unknown>;
    header?: Record<string, unknown>;
    path?: Record<string, unknown>;
    cookie?: Record<string, unknown>;
  };
  /** A random id, the same for every callback of one attempt. */
  readonly id: string;
  /** The request's options, read-only. */
  readonly options: { readonly baseUrl: string; readonly parseAs: string; readonly fetch: typeof globalThis.fetch };
}

/**
 * openapi-fetch middleware, run for every attempt of a create: `onRequest` before it is sent (return
 * a Request to send that one instead, such as the same with other headers), `onResponse` with every
 * answer, `onError` with every failure to get one (no connection, a timeout). Several run in order
 * for `onRequest`, and in reverse order for the other two, as in openapi-fetch.
 * @example
 * const requestIds: Middleware = {
 *   onRequest({ request }) {
 *     request.headers.set('x-request-id', crypto.randomUUID());
 *   },
 * };
 */
export interface Middleware {
  onRequest?(
    options: MiddlewareCallbackParams,
    // biome-ignore lint/suspicious/noConfusingVoidType: openapi-fetch's own return type, which this one must equal
  ): void | Request | Response | undefined | Promise<Request | Response | undefined | void>;
  onResponse?(
    options: MiddlewareCallbackParams & { response: Response },
    // biome-ignore lint/suspicious/noConfusingVoidType: openapi-fetch's own return type, which this one must equal
  ): void | Response | undefined | Promise<Response | undefined | void>;
  onError?(
    options: MiddlewareCallbackParams & { error: unknown },
    // biome-ignore lint/suspicious/noConfusingVoidType: openapi-fetch's own return type, which this one must equal
  ): void | Response | Error | Promise<void | Response | Error>;
}
