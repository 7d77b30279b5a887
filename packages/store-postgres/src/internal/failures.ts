// Which failures of the database mean "not now" (the app's 503, retried by the client) rather than a
// fault: the database or the way to it is down, busy or cut off, or a statement's outcome is unknown.

/** Errors of the socket: refused, reset, cut, unreachable, a name that does not resolve yet. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // a Unix socket that is not there: the server is not running
]);

/**
 * SQLSTATEs of the server that pass: 08 connection exception, 53 insufficient resources (too many
 * connections, disk full), 57P01-57P05 shut down or restarting, 57014 cancelled (the statement
 * timeout), 58 system error (I/O), 40001/40P01 serialization failure and deadlock, 25006 a read-only
 * server (a standby, as during a failover), 55P03 a lock not available, and 42P05/26000 a named
 * statement already there or missing, which is a pooler handing one session's statements to another
 * (PgBouncer in transaction mode). Every other SQLSTATE is a fault: a bug of the store, or a table
 * changed under it.
 */
function isTransientState(code: string): boolean {
  return (
    isPreparedStatementTrouble(code) ||
    code.startsWith('08') ||
    code.startsWith('53') ||
    code.startsWith('58') ||
    code.startsWith('57P') ||
    code === '57014' ||
    code === '40001' ||
    code === '40P01' ||
    code === '25006' ||
    code === '55P03'
  );
}

/** 42P05 (a statement of that name exists) or 26000 (none does): named statements meet a pooler. */
export function isPreparedStatementTrouble(code: unknown): boolean {
  return code === '42P05' || code === '26000';
}

/**
 * Whether waiting cannot cure `error` at start: every error that is not {@link isUnavailable} (a wrong
 * password, an unknown database or role, a TLS certificate that does not verify), and a refusal by
 * PgBouncer, which sends 08P01 for everything: a wrong password, an unknown user or database, a
 * start-up parameter it does not take, a server login that failed for good. Its other 08P01s (it
 * cannot reach the database yet, too many clients, a login that keeps failing) keep the wait.
 */
export function isFatalAtStart(error: unknown): boolean {
  if (!isUnavailable(error)) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '08P01' && typeof message === 'string' && POOLER_REFUSALS.test(message);
}

const POOLER_REFUSALS =
  /^(password authentication failed|SASL authentication failed|no such user|no such database|unsupported startup parameter|server login failed)/i;

/** The start-up parameter a pooler refused (`unsupported startup parameter: statement_timeout`), if that is `error`. */
export function refusedStartupParameter(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== '08P01' || typeof message !== 'string') return undefined;
  return /unsupported startup parameter:?\s*(\S+)/i.exec(message)?.[1];
}

/** Messages of `pg` for a connection it lost or could not open in time (they carry no code). */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
];

/** Whether `error` is the database being unavailable, as opposed to a fault of the store or its SQL. */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return isTransientState(code);
  }
  if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Several addresses for one host name, each refused: Node's AggregateError of the attempts.
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(isUnavailable);
  return false;
}

/** Whether the connection that gave `error` should be thrown away instead of going back to the pool. */
export function breaksConnection(error: unknown): boolean {
  if (!isUnavailable(error)) return false;
  const code = (error as { code?: unknown }).code;
  // A statement timeout, deadlock, serialization failure or lock wait leaves the session usable.
  return !(
    isPreparedStatementTrouble(code) ||
    code === '57014' ||
    code === '40001' ||
    code === '40P01' ||
    code === '55P03' ||
    code === '25006' ||
    (typeof code === 'string' && code.startsWith('53'))
  );
}

/** Node's codes for a server certificate that does not verify (tls.TLSSocket's authorizationError). */
const TLS_CODES =
  /^(ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_\w+|ERR_SSL_\w+)$/;

/**
 * A short reason for a message: the driver's words and the code (a SQLSTATE where the server sent
 * one), which never hold the password. A certificate that does not verify says so first.
 */
export function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text =
    typeof message === 'string' && message !== ''
      ? message
      : error instanceof AggregateError
        ? error.errors.map(describe).join('; ')
        : String(error);
  const reason = typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
  return typeof code === 'string' && TLS_CODES.test(code)
    ? `the server's TLS certificate does not verify (sslmode, sslrootcert): ${reason}`
    : reason;
}
