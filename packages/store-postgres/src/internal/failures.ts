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
 * server (a standby, as during a failover), 55P03 a lock not available.
 */
function isTransientState(code: string): boolean {
  return (
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
    code === '57014' ||
    code === '40001' ||
    code === '40P01' ||
    code === '55P03' ||
    code === '25006' ||
    (typeof code === 'string' && code.startsWith('53'))
  );
}

/** A short reason for a message: the code and the driver's words (they never hold the password). */
export function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text =
    typeof message === 'string' && message !== ''
      ? message
      : error instanceof AggregateError
        ? error.errors.map(describe).join('; ')
        : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}
