// The start: open the pool (or borrow the caller's), and try to connect and prepare the table until
// the database accepts the store or the start-up wait is over. Along the way the store finds out what
// is in front of the database: for sslmode=prefer, a server without TLS; a pooler that refuses the
// statement timeout as a start-up parameter (PgBouncer).
import { PostgresStoreError } from '../postgres-store-error.js';
import type { PostgresPool } from '../types.js';
import { resolveConnectionSettings } from './connection-settings.js';
import { createPool, type PoolOptions } from './create-pool.js';
import { describe, isFatalAtStart, refusedStartupParameter } from './failures.js';
import { type CheckedOptions, DEFAULTS } from './options.js';
import { prepareTable, TableLockedError } from './prepare-table.js';
import { formatMs, TIMED_OUT, withTimeout } from './timeout.js';

/** What the start settled on. */
export interface Started {
  /** The pool to use: the caller's, or the one the store made. */
  readonly pool: PostgresPool;
  /** `host:port` (comma-separated for a host list), for messages. */
  readonly target: string;
  /** Whether a pooler is in front of the database, which refused the statement timeout as a start-up parameter. */
  readonly behindPooler: boolean;
  /** Ends the pool the store made; leaves a caller's pool open. */
  end(): Promise<void>;
}

/**
 * Resolves once a connection is open and the table is checked (created when absent and allowed).
 * Rejects with a {@link PostgresStoreError}: `unreachable` when no connection opens within
 * `startTimeout`, `refused` at once for what waiting cannot cure (a wrong password, an unknown database
 * or role, a certificate that does not verify), `schema` for a table of another shape (or one that
 * stayed locked while the store would add columns to it). A pool the store made is ended when it gives up.
 */
export async function startDatabase(options: CheckedOptions): Promise<Started> {
  const { callerPool } = options;
  if (callerPool !== undefined) {
    const target = `${callerPool.options?.host ?? 'localhost'}:${callerPool.options?.port ?? 5432}`;
    await untilReady(options.startTimeout, target, () => prepareTable(callerPool, { ...options, target }), noChange);
    return { pool: callerPool, target, behindPooler: false, end: () => Promise.resolve() };
  }

  const settings = resolveConnectionSettings({ connectionString: options.connectionString, caFile: options.caFile });
  const { target } = settings;
  let poolOptions: PoolOptions = {
    poolSize: options.poolSize,
    statementTimeout: options.statementTimeout,
    connectTimeout: options.connectTimeout ?? settings.connectTimeout ?? DEFAULTS.connectTimeout,
    behindPooler: false,
  };
  let tls = settings.ssl !== undefined;
  let pool = createPool(settings, poolOptions, settings.ssl ?? false);
  // A failure that tells what is in front of the database: a new pool that fits it, tried at once.
  const adapt = async (error: unknown): Promise<boolean> => {
    // libpq's prefer: TLS when the server offers it, a plain connection when it does not.
    const plain = tls && settings.sslMode === 'prefer' && refusesTls(error);
    const pooler = !poolOptions.behindPooler && refusedStartupParameter(error) === 'statement_timeout';
    if (!plain && !pooler) return false;
    if (plain) tls = false;
    if (pooler) poolOptions = { ...poolOptions, behindPooler: true };
    await pool.end().catch(() => undefined);
    pool = createPool(settings, poolOptions, tls ? (settings.ssl ?? false) : false);
    return true;
  };
  try {
    await untilReady(options.startTimeout, target, () => prepareTable(pool, { ...options, target }), adapt);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const started = pool;
  return { pool: started, target, behindPooler: poolOptions.behindPooler, end: () => started.end() };
}

/**
 * Runs `attempt` until it succeeds or `startTimeout` has passed, then gives up with the last reason;
 * what waiting cannot cure gives up at once. A failure for which `adapt` changes the way to the
 * database (resolving true) is tried again at once.
 */
async function untilReady(
  startTimeout: number,
  target: string,
  attempt: () => Promise<void>,
  adapt: (error: unknown) => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + startTimeout;
  let pause = 100;
  let lastError: unknown;
  for (;;) {
    try {
      const remaining = deadline - Date.now();
      // Each attempt is also bounded by the pool's connect timeout; the last one by what is left.
      const tried = attempt();
      await (remaining > 0 ? withTimeout(tried, remaining) : tried);
      return;
    } catch (error) {
      if (error instanceof PostgresStoreError) throw error;
      if (await adapt(error)) continue;
      const late = error === TIMED_OUT;
      if (!late && isFatalAtStart(error)) {
        throw new PostgresStoreError(
          'refused',
          target,
          `PostgreSQL at ${target} refused the plant store: ${describe(error)}`,
          {
            cause: error,
          },
        );
      }
      if (!late) lastError = error;
      const left = deadline - Date.now();
      if (late || left <= 0) {
        if (lastError instanceof TableLockedError)
          throw new PostgresStoreError('schema', target, lastError.message, { cause: lastError });
        const reason = lastError === undefined ? 'no answer' : describe(lastError);
        throw new PostgresStoreError(
          'unreachable',
          target,
          `PostgreSQL at ${target} did not accept a connection within ${formatMs(startTimeout)}: ${reason}`,
          { cause: lastError },
        );
      }
      // The last try comes at the deadline, so the whole wait is used.
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, 1_000);
    }
  }
}

/** Whether `error` is `pg`'s answer to a server that refused TLS. */
function refusesTls(error: unknown): boolean {
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.startsWith('The server does not support SSL');
}

/** For a caller's pool, which the store cannot remake: no failure changes the way to the database. */
async function noChange(): Promise<boolean> {
  return false;
}
