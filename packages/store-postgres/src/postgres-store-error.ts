/** Why the PostgreSQL store refused to start, or refused a call. */
export type PostgresStoreErrorCode =
  /** The database did not accept a connection within the start-up wait. */
  | 'unreachable'
  /** The database answered but refused the store: wrong password, no such database, missing privileges, TLS refused. */
  | 'refused'
  /** The table has another shape than a plant table; or it, or an optional field's column, is missing where the store may not add it; or it stayed locked while the store would. */
  | 'schema'
  /** The store was closed. */
  | 'closed'
  /** The database failed a statement with an error the store does not expect (a bug, or a table changed under it); `sqlState` says which. */
  | 'statement';

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
  /** The server's SQLSTATE, when the database answered with an error (`28P01`, `3D000`, `42P01`…). */
  readonly sqlState: string | undefined;

  constructor(
    code: PostgresStoreErrorCode,
    target: string,
    message: string,
    options: { cause?: unknown; sqlState?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.target = target;
    this.sqlState = options.sqlState ?? sqlStateOf(options.cause);
  }
}

/** The SQLSTATE of an error the database answered with (`42P01`, `57P01`…); undefined for any other. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
