// What several test files of a run share but only one may start (the run's PostgreSQL, a PgBouncer, the
// packed tarballs): the first file that asks starts it, the others wait for its result. Files run in
// separate processes, so the claim is a directory made in the run's directory (mkdir either creates it
// or fails: one winner) and the result a file renamed into place (readers see all of it or nothing).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** How long a file waits for what another file of the run is starting. */
const SHARED_START_MS = 170_000;

/**
 * What `start` makes (`what`, for messages), once per run: the first caller (whichever test process
 * creates `<name>` in the run's directory `dir`) starts it, and writes `<name>.json`: the result (plain
 * JSON), or why it failed. The others wait for that file. A server `start` starts must outlive that
 * process (detached) and live in `<dir>/<name>`, where the run's teardown stops it.
 */
export async function startedOnce<T>(dir: string, name: string, what: string, start: () => Promise<T>): Promise<T> {
  const result = join(dir, `${name}.json`);
  let first = true;
  try {
    mkdirSync(join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    first = false;
  }
  if (first) {
    let outcome: { value?: T; error?: string };
    try {
      outcome = { value: await start() };
    } catch (error) {
      outcome = { error: (error as Error).message };
    }
    writeFileSync(`${result}.tmp`, JSON.stringify(outcome));
    renameSync(`${result}.tmp`, result);
  }
  const deadline = Date.now() + SHARED_START_MS;
  for (;;) {
    let outcome: { value?: T; error?: string } | undefined;
    try {
      outcome = JSON.parse(readFileSync(result, 'utf8'));
    } catch {
      // Not written yet.
    }
    if (outcome && 'value' in outcome) return outcome.value as T;
    if (outcome) throw new Error(`the test run's ${what} did not start: ${outcome.error}`);
    if (Date.now() > deadline)
      throw new Error(`the test run's ${what} was not up after ${SHARED_START_MS / 1000} s (${result} not written)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
