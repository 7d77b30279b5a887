// The plant-store-server command as users run it: the built dist/cli.js in a child process (the
// root `npm test` builds first). Every child is killed after its test; every wait is bounded.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

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

/** Waits (at most 10 s) for the start banner and returns the URL it printed. */
export async function listening(result: Run): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const match = /listening on (\S+)/.exec(result.stdout);
    if (match?.[1] !== undefined) return match[1];
    if (result.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the CLI did not start; stdout: ${result.stdout} stderr: ${result.stderr}`);
}
