// Starts the runtimes the tests serve the core with as real child processes, waits for the URL they
// print, and stops them. Each runs under supervise.mjs, as the leader of a process group of its own:
// stopping it stops everything it started (workerd under miniflare), and it stops by itself when this
// process goes away.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root, where the runtimes are started (their node_modules and paths are relative to it). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How long a runtime may take to print its URL: a hang guard, not a speed check. */
const START_TIMEOUT_MS = 60_000;
/** How long a runtime has to stop after SIGTERM before its process group is killed (supervise.mjs allows 3 s). */
const STOP_GRACE_MS = 5_000;

/** One started runtime: the URL it listens on, and how to stop it. */
export interface RuntimeProcess {
  /** The origin and path it printed, e.g. `http://127.0.0.1:40433/`. */
  readonly url: string;
  /** Stops it and everything it started; resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const SUPERVISE = fileURLToPath(new URL('./supervise.mjs', import.meta.url));

/**
 * Starts `command` with `args` from the repository's root and resolves once it prints
 * `listening on http://…`. Rejects, with what it printed, when it exits or stays silent first, and
 * leaves nothing running then.
 */
export function startRuntime(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<RuntimeProcess> {
  // stdin stays open: supervise.mjs stops the runtime when it closes.
  const child = spawn(process.execPath, [SUPERVISE, command, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  // 'error' without 'exit' when the command could not be started at all.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()).once('error', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Nothing is left in the group.
    }
  };
  // This process may end without the test's afterAll (a crash, process.exit): the group goes with it.
  const killOnExit = () => killGroup('SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
      process.off('exit', killOnExit);
    })();
    return stopping;
  };

  return new Promise<RuntimeProcess>((resolve, reject) => {
    let settled = false;
    const settle = (url: string | undefined, why = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (url !== undefined) resolve({ url, stop });
      else void stop().then(() => reject(new Error(`${command} ${args.join(' ')} ${why}; it printed:\n${printed}`)));
    };
    const timer = setTimeout(() => settle(undefined, `printed no URL within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const onOutput = (chunk: Buffer) => {
      printed = (printed + chunk.toString('utf8')).slice(-20_000);
      const url = /listening on (http:\/\/\S+)/.exec(printed)?.[1];
      if (url !== undefined) settle(url);
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.once('error', (error) => settle(undefined, `could not start: ${error.message}`));
    void exited.then(() => settle(undefined, `exited with ${child.exitCode ?? child.signalCode}`));
  });
}
