/**
 * `promise`, or the signal's reason as soon as it aborts: a call stops waiting (for a pause, for a token)
 * while what it waited for goes on, such as a refresh that other calls share.
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal
    ? new Promise((resolve, reject) => {
        // Thrown in the executor: an abort that came first rejects at once.
        signal.throwIfAborted();
        const abort = () => reject(signal.reason);
        signal.addEventListener('abort', abort);
        promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
      })
    : promise;
}
