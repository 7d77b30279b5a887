import { unlessAborted } from './abort.js';

/**
 * Time and chance behind one object, so tests can replace them (`vi.spyOn(clock, 'sleep')`) and
 * never wait for real backoff.
 */
export const clock = {
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The timer goes when the pause ends either way: an aborted call must not keep a process alive.
    return unlessAborted(
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
      signal,
    ).finally(() => clearTimeout(timer));
  },
  random: Math.random,
};

/**
 * The pause before retry number `retry` (0 for the first): the server's `Retry-After` (seconds or an
 * HTTP date, RFC 9110 §10.2.3) when it sent one, capped at a minute: a call that waited longer would
 * look hung, so a server asking for more gets its retry after a minute (it may answer 429 again,
 * which ends the call once the retries are spent). Otherwise exponential backoff from 0.5 s up to
 * 8 s with full jitter, so clients that failed together do not come back together.
 */
export function retryDelay(retry: number, retryAfter: string | null | undefined): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000;
    // A date in the past means now; an unreadable value falls through to the backoff.
    if (!Number.isNaN(ms)) return Math.min(Math.max(ms, 0), 60_000);
  }
  return clock.random() * Math.min(8000, 500 * 2 ** retry);
}
