// Process plumbing for the bench: spawn node children pinned to one core, read their line
// protocol (READY / PHASE / RESULT), and read their memory and CPU from /proc.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('.', import.meta.url));

/** Whether `command` is on the PATH. */
export function hasCommand(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether `taskset` can pin processes here (util-linux; absent on macOS). */
export const canPin = hasCommand('taskset');

/** How many cores the bench may use; pinning needs two. */
export const cores = (() => {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return 1;
  }
})();

/** Spawns `node ...args` pinned to `core` when pinning is possible. */
export function spawnNode(args, { core, nodeArgs = [], env, stdin = 'ignore' } = {}) {
  const argv = [...nodeArgs, ...args];
  const pin = canPin && cores >= 2 && core !== undefined;
  const stdio = [stdin, 'pipe', 'pipe'];
  const child = pin
    ? spawn('taskset', ['-c', String(core), process.execPath, ...argv], { stdio, env })
    : spawn(process.execPath, argv, { stdio, env });
  const lines = createInterface({ input: child.stdout });
  let stderr = '';
  // Children are drained always: a server that logs into a pipe nobody reads stops when it fills.
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 20_000) stderr += chunk;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exited, stderr: () => stderr };
}

/** Waits for a line starting with `prefix` and returns the rest, parsed as JSON. */
export function waitForLine(proc, prefix, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      proc.child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${prefix}\n${proc.stderr()}`));
    }, timeoutMs);
    const onLine = (line) => {
      if (!line.startsWith(prefix)) return;
      cleanup();
      const rest = line.slice(prefix.length).trim();
      resolve(rest === '' ? null : JSON.parse(rest));
    };
    const onExit = ({ code, signal }) => {
      cleanup();
      reject(new Error(`exited (${code ?? signal}) before ${prefix}\n${proc.stderr()}`));
    };
    function cleanup() {
      clearTimeout(timer);
      proc.lines.off('line', onLine);
    }
    proc.lines.on('line', onLine);
    proc.exited.then(onExit);
  });
}

/**
 * Starts `lib/serve.mjs <kind>` as a server under test.
 * @returns {Promise<{ url: string, pid: number, stop(): Promise<void>, stderr(): string }>}
 */
export async function startServer(kind, options, { core = 0, nodeArgs = [] } = {}) {
  const proc = spawnNode([`${LIB}serve.mjs`, kind, JSON.stringify(options)], { core, nodeArgs });
  const ready = await waitForLine(proc, 'READY', 30_000);
  return {
    url: ready.url,
    pid: proc.child.pid,
    stderr: proc.stderr,
    async stop() {
      proc.child.kill('SIGTERM');
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a bench child to completion and returns its `RESULT` line, killing it after `timeoutMs`. */
export async function runChild(args, { core, nodeArgs, timeoutMs = 120_000, onLine } = {}) {
  const proc = spawnNode(args, { core, nodeArgs });
  if (onLine) proc.lines.on('line', onLine);
  const result = await waitForLine(proc, 'RESULT', timeoutMs);
  await proc.exited;
  return result;
}

/**
 * Starts `lib/load.mjs --session`: one load generator for many bursts (see load.mjs).
 * @returns {{ burst(config: object, options?: { timeoutMs?: number, onLine?(line: string): void }): Promise<object>, stop(): Promise<void> }}
 */
export function startLoader({ core } = {}) {
  const proc = spawnNode([`${LIB}load.mjs`, '--session'], { core, stdin: 'pipe' });
  return {
    async burst(config, { timeoutMs = 60_000, onLine } = {}) {
      if (onLine) proc.lines.on('line', onLine);
      try {
        const result = waitForLine(proc, 'RESULT', timeoutMs);
        proc.child.stdin.write(`${JSON.stringify(config)}\n`);
        return await result;
      } finally {
        if (onLine) proc.lines.off('line', onLine);
      }
    },
    async stop() {
      proc.child.stdin.end();
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 10_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}

/** A field of /proc/<pid>/status in KiB (VmHWM is the peak RSS), or NaN where /proc is absent. */
export function procStatusKiB(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** The CPU seconds (user + system) a process has used so far, or NaN where /proc is absent. */
export function procCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name, which may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
