/** Why the PostgreSQL store refused to start, or refused a call. */
export type PostgresStoreErrorCode =
  /** The database did not accept a connection within the start-up wait. */
  | 'unreachable'
  /** The database answered but refused the store: wrong password, no such database, missing privileges, TLS refused. */
  | 'refused'
  /** The table has another shape than a plant table, or is missing where the store may not create it. */
  | 'schema'
  /** The store was closed. */
  | 'closed';

/**
 * What `createPostgresStore` rejects with when it cannot start, and what a closed store throws. The
 * message names the database as `host:port` (never the password) and the table, and says what is
 * wrong, because whoever reads it is running the server. Failures while serving are the core's
 * `StoreUnavailableError` instead (the app's 503).
 */
export class PostgresStoreError extends Error {
  override readonly name = 'PostgresStoreError';
  /** A machine-readable reason; branch on this, not on the message. */
  readonly code: PostgresStoreErrorCode;
  /** The database, as `host:port`. */
  readonly target: string;

  constructor(code: PostgresStoreErrorCode, target: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.target = target;
  }
}
