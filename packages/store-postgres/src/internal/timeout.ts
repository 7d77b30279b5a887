// A bound on a wait by the store's own clock, for what the database may never answer, and how messages
// write such a bound.

/** What {@link withTimeout} rejects with when time runs out. */
export const TIMED_OUT = new Error('no answer in time');

/** `promise`, or a rejection with {@link TIMED_OUT} after `ms`; what it brings late is released by its owner. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `ms` for a message: whole seconds as `5 s`, else `250 ms`. */
export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
