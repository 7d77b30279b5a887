const BRAND = Symbol.for('plant-store.StoreUnavailableError');

/** Options of {@link StoreUnavailableError}. */
export interface StoreUnavailableErrorOptions {
  /** The driver's or the system's error behind it. */
  readonly cause?: unknown;
  /** Seconds a client should wait before it retries, sent as `Retry-After`. Default 1. */
  readonly retryAfter?: number;
}

/**
 * What a store throws when it cannot answer now: its database is unreachable, a statement timed out, or
 * a write's outcome is unknown (the connection broke during the commit). The app answers it with 503,
 * `Retry-After` and error code 50301, never with a 200: nothing was acknowledged, and since a create is
 * idempotent by id, the client's retry either creates the plant or replays it. Any other error from a
 * store is a fault (500).
 *
 * @example
 * // In a store's insert, where the driver says the connection was refused:
 * throw new StoreUnavailableError('the database at db:5432 refused the connection', { cause: error });
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** Seconds a client should wait before it retries. */
  readonly retryAfter: number;

  constructor(message: string, options: StoreUnavailableErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const retryAfter = options.retryAfter ?? 1;
    if (!Number.isSafeInteger(retryAfter) || retryAfter < 0) {
      throw new RangeError(`retryAfter must be a whole number of seconds, 0 or more; got ${String(retryAfter)}`);
    }
    this.retryAfter = retryAfter;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /**
   * Whether `error` is a StoreUnavailableError, also one made by another copy of this package (a
   * store package may resolve its own copy of the core), where `instanceof` would say no.
   */
  static is(error: unknown): error is StoreUnavailableError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
  }
}
