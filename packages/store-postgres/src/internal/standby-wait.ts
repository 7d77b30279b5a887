// Commits the primary made alone. With synchronous replication, a commit waits for the synchronous
// standby before PostgreSQL answers it. A cancel of the waiting backend (pg_cancel_backend, a pooler's
// or an HA manager's cancel) or its termination (57P01, a shutdown) ends the wait early; the
// transaction is committed on the primary already, so PostgreSQL cannot fail it: it sends a WARNING and
// answers the statement as a success. That success is no acknowledgment, since a failover to the
// standby would lose the commit. (The statement timeout never ends the wait: it stops as the statement
// ends, before the commit.)
import type { PostgresNotice, PostgresPoolClient } from '../types.js';
import { describe } from './failures.js';

/** PostgreSQL's function that waits for the synchronous standby, which each of its notices names. */
const WAIT_ROUTINE = 'SyncRepWaitForLSN';

/**
 * Whether `notice` is PostgreSQL giving up a commit's wait for the synchronous standby. The routine is
 * sent untranslated, whatever the server's `lc_messages`, so it decides where the server sends it
 * (PostgreSQL always does, and PgBouncer passes it on). Where a server or a proxy leaves it out, the
 * notice must have the SQLSTATE of either warning (01000 for a cancel, 57P01 for a termination) and an
 * English message naming synchronous replication: such a server's warnings in another language are not
 * recognized. A warning of any other kind (a trigger's RAISE WARNING, also 01000) is not this.
 */
export function abandonsStandbyWait(notice: PostgresNotice): boolean {
  if (notice.routine !== undefined && notice.routine !== '') return notice.routine === WAIT_ROUTINE;
  return (
    (notice.code === '01000' || notice.code === '57P01') &&
    typeof notice.message === 'string' &&
    /\bsynchronous replication\b/i.test(notice.message)
  );
}

/** What the server said about the standby while a batch's statements ran. */
export interface StandbyWatch {
  /** The first notice that gave up a wait for the synchronous standby, if one came. */
  readonly abandoned: () => PostgresNotice | undefined;
  /** Stops listening (before the connection goes back to the pool). */
  readonly stop: () => void;
}

/** Listens to the notices of `client` for a wait for the synchronous standby given up. */
export function watchStandbyWait(client: PostgresPoolClient): StandbyWatch {
  let abandoned: PostgresNotice | undefined;
  const listener = (notice: PostgresNotice) => {
    if (abandoned === undefined && abandonsStandbyWait(notice)) abandoned = notice;
  };
  client.on('notice', listener);
  return { abandoned: () => abandoned, stop: () => client.removeListener('notice', listener) };
}

/** What a 503 says of a commit whose wait for the synchronous standby was given up. */
export function unconfirmedMessage(notice: PostgresNotice, target: string): string {
  return `PostgreSQL at ${target} has the plant committed on the primary, but its synchronous standby has not confirmed it, so it is not acknowledged; a retry replays it once the standby has it: ${describe(notice)}`;
}

/** The notice as an error, for the batch's failure to carry as its cause. */
export function noticeError(notice: PostgresNotice): Error {
  return Object.assign(new Error(notice.message), { code: notice.code });
}
