// The plant-store-server command as users run it: the built dist/cli.js in a child process (the
// root `npm test` builds first). Every child is killed after its test; every wait is bounded.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { getCurrentTest } from 'vitest/suite';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

export interface Run {
  readonly child: ChildProcess;
  stdout: string;
  /** The first chunk read from stdout: the start-up banner must arrive whole. */
  firstChunk?: string;
  stderr: string;
  readonly exited: Promise<number | null>;
  /** The exit code and the signal that ended the process (one of the two is null). */
  readonly ended: Promise<[code: number | null, signal: NodeJS.Signals | null]>;
  /**
   * The exit code, once the process has exited and all it wrote is in `stdout` and `stderr`: Node's
   * 'close', which waits for every process that shares the pipes (the workers of --workers). At
   * 'exit', the last bytes may still be on their way.
   */
  readonly closed: Promise<number | null>;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
});

/** Runs the CLI (this repository's build, or `cli`, another build's dist/cli.js) with `args`. */
export function run(args: string[], env: Record<string, string> = {}, cli = CLI): Run {
  // Only the variables the test gives: a developer's own PLANT_STORE_* must not leak in.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PLANT_STORE_')));
  const child = spawn(process.execPath, [cli, ...args], { env: { ...clean, ...env }, stdio: 'pipe' });
  children.add(child);
  const result: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    ended: new Promise((resolve) => child.once('exit', (code, signal) => resolve([code, signal]))),
    closed: new Promise((resolve) => child.once('close', (code) => resolve(code))),
  };
  child.stdout?.on('data', (data: Buffer) => {
    result.firstChunk ??= data.toString();
    result.stdout += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    result.stderr += data.toString();
  });
  return result;
}

// A hook, or a call outside any test, waits this long for a banner.
const OUTSIDE_A_TEST_MS = 30_000;
// A wait cut by the test's timeout reports this long before it, so that the failure is the report.
const REPORT_MARGIN_MS = 1_000;

/**
 * How long a wait of the running test may last: until just before the test's own timeout. A shorter
 * bound would decide by chance on a loaded machine (two workers that load the OpenTelemetry SDK took
 * 15 s to start on 2 cores at a load average of 10); the test's timeout bounds the test anyway, and
 * the wait only reports before it.
 */
function timeLeftInTest(): number {
  const test = getCurrentTest();
  const startTime = test?.result?.startTime;
  if (test === undefined || startTime === undefined) return OUTSIDE_A_TEST_MS;
  if (!(test.timeout > 0 && Number.isFinite(test.timeout))) return Number.POSITIVE_INFINITY;
  return Math.max(0, startTime + test.timeout - REPORT_MARGIN_MS - Date.now());
}

/** Whether the process runs, or how it ended. */
function stateOf(child: ChildProcess): string {
  if (child.exitCode !== null) return `it exited with code ${child.exitCode}`;
  if (child.signalCode !== null) return `it was ended by ${child.signalCode}`;
  return `it is still running (pid ${child.pid})`;
}

/**
 * Waits for the start banner and returns the URL it printed. Rejects, with whether the process still
 * runs and all it printed, when it has exited and closed its output without a banner, or just before
 * the test would time out (outside a test, after 30 s).
 */
export function listening(result: Run): Promise<string> {
  const { child } = result;
  const since = Date.now();
  return new Promise((resolve, reject) => {
    let settled = false;
    const seconds = () => `${((Date.now() - since) / 1000).toFixed(1)} s`;
    const report = (what: string) => {
      if (settled) return;
      settled = true;
      stop();
      reject(
        new Error(
          `the CLI did not start: ${what}, and ${stateOf(child)}; stdout: ${result.stdout} stderr: ${result.stderr}`,
        ),
      );
    };
    const check = () => {
      const match = /listening on (\S+)/.exec(result.stdout);
      if (settled || match?.[1] === undefined) return;
      settled = true;
      stop();
      resolve(match[1]);
    };
    const wait = timeLeftInTest();
    const timer = Number.isFinite(wait)
      ? setTimeout(() => report(`it printed no banner in ${seconds()}, the time the test had left`), wait)
      : undefined;
    const stop = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
    };
    // After run()'s own listener, which has added the chunk to `stdout` by then.
    child.stdout?.on('data', check);
    // 'close', not 'exit': by then all it printed has been read. A promise: it may have closed already.
    void result.closed.then(() => {
      check();
      report(`it closed its output without a banner after ${seconds()}`);
    });
    check();
  });
}
