import { errorCodes, type ErrorCode } from './generated/error-codes.js';
import type { ErrorBody } from './types.js';

// A registry symbol, not `instanceof`: an app that loads both the ESM and the CJS build (or two
// versions) has two classes of each name, and the guards must still recognise the other copy's errors.
const BRAND = Symbol.for('@plant-store/client/error');

// Branded instances and `name` fields rather than prototype edits after the classes: a top-level
// statement would keep every class in a bundle that imports only `ErrorCode`.
const branded = (value: unknown, name?: string): boolean =>
  (value as Record<symbol, unknown> | null | undefined)?.[BRAND] === true && (!name || (value as Error).name === name);

/**
 * The base of every error the client throws for a failed request; input mistakes are `TypeError`s
 * and a caller's abort rejects with the signal's reason.
 */
export class PlantStoreError extends Error {
  override name = 'PlantStoreError';

  /** Same as `Error`'s; the instance is branded so copies of this package recognise it. */
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Whether `value` is a PlantStoreError from any loaded copy of this package (ESM, CJS, another version). */
  static is(value: unknown): value is PlantStoreError {
    return branded(value);
  }
}

/**
 * The service answered, but not with a Plant: carries the status, the spec's error `code`, the
 * request id, the Error body and the raw response (the spec's `Error` schema).
 */
export class PlantStoreApiError extends PlantStoreError {
  override name = 'PlantStoreApiError' as const;
  /** The HTTP status of the answer. */
  declare readonly status: number;
  /** The spec's `error` value when it is a code this client knows, otherwise `undefined`. */
  declare readonly code: ErrorCode | undefined;
  /** The answer's `X-Request-Id`, to find the request in the server's logs. */
  declare readonly requestId: string | undefined;
  /** The spec's Error body when the answer carried one. */
  declare readonly body: ErrorBody | undefined;
  /** The raw response (its body has been read). */
  declare readonly response: Response;

  /**
   * `request` is `METHOD URL` for the message; `body` is the answer's body as read (parsed JSON, text or
   * `undefined`); `problem` says what is wrong when it is not an Error body.
   */
  constructor(request: string, response: Response, body: unknown, problem: string) {
    const errorBody =
      typeof (body as ErrorBody)?.message === 'string' && typeof (body as ErrorBody).error === 'number'
        ? (body as ErrorBody)
        : undefined;
    super(`${request} failed with ${response.status}: ${errorBody ? errorBody.message : problem}`);
    this.status = response.status;
    this.code =
      errorBody && errorCodes.includes(errorBody.error as ErrorCode) ? (errorBody.error as ErrorCode) : undefined;
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.body = errorBody;
    this.response = response;
  }

  /** Whether `value` is a PlantStoreApiError from any loaded copy of this package. */
  static override is(value: unknown): value is PlantStoreApiError {
    return branded(value, 'PlantStoreApiError');
  }
}

/** The request got no answer: the connection failed or broke; `cause` is what fetch threw. */
export class PlantStoreNetworkError extends PlantStoreError {
  override name = 'PlantStoreNetworkError' as const;

  /** `request` is `METHOD URL` for the message. */
  constructor(request: string, cause: unknown) {
    super(`${request} failed: ${(cause as Error)?.message ?? cause}`, { cause });
  }

  /** Whether `value` is a PlantStoreNetworkError from any loaded copy of this package. */
  static override is(value: unknown): value is PlantStoreNetworkError {
    return branded(value, 'PlantStoreNetworkError');
  }
}

/** No complete answer came within the timeout (each attempt has its own). */
export class PlantStoreTimeoutError extends PlantStoreError {
  override name = 'PlantStoreTimeoutError' as const;
  /** The timeout that ran out, in milliseconds. */
  declare readonly timeout: number;

  /** `request` is `METHOD URL` for the message. */
  constructor(request: string, timeout: number) {
    super(`${request} timed out after ${timeout} ms`);
    this.timeout = timeout;
  }

  /** Whether `value` is a PlantStoreTimeoutError from any loaded copy of this package. */
  static override is(value: unknown): value is PlantStoreTimeoutError {
    return branded(value, 'PlantStoreTimeoutError');
  }
}
