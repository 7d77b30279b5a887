// Process plumbing for the bench: spawn node children pinned to one core (under valgrind when an
// instruction count is wanted), read their line protocol (READY / PHASE / RESULT), and read their
// memory and CPU from /proc.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
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

/** How many cores the bench may use; pinning needs two. */
export const cores = (() => {
  try {
    return Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    return 1;
  }
})();

/** Whether processes are pinned to cores here (`taskset`, from util-linux, is absent on macOS). */
export const canPin = hasCommand('taskset') && cores >= 2;

/** Whether valgrind is installed (it is optional: the instruction counts are skipped without it). */
export const hasValgrind = hasCommand('valgrind');

// The one way the bench counts instructions: cachegrind without cache simulation.
const VALGRIND = [
  'valgrind',
  '--tool=cachegrind',
  '--cache-sim=no',
  '--cachegrind-out-file=/dev/null',
  // V8 writes and rewrites machine code at run time.
  '--smc-check=all-non-file',
];

/** The instruction count valgrind printed on stderr at exit, or undefined. */
export function readInstructionCount(stderr) {
  const match = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  return match ? Number(match[1].replaceAll(',', '')) : undefined;
}

/**
 * Spawns `node ...args`, pinned to `core` when pinning is possible, under valgrind when `valgrind`
 * is set. stdout is read as lines; the tail of stderr is kept for error messages (and for
 * valgrind's count, printed last).
 */
export function spawnNode(args, { core, nodeArgs = [], env, stdin = 'ignore', valgrind = false, stderrPath } = {}) {
  const command = [...(valgrind ? VALGRIND : []), process.execPath, ...nodeArgs, ...args];
  if (canPin && core !== undefined) command.unshift('taskset', '-c', String(core));
  // With `stderrPath`, stderr goes to that file, as an operator keeps a server's log.
  const fd = stderrPath === undefined ? 'pipe' : openSync(stderrPath, 'a');
  const child = spawn(command[0], command.slice(1), { stdio: [stdin, 'pipe', fd], env });
  if (typeof fd === 'number') closeSync(fd);
  const lines = createInterface({ input: child.stdout });
  let stderr = '';
  // Children are drained always: a server that logs into a pipe nobody reads stops when it fills.
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exited, stderr: () => (stderrPath === undefined ? stderr : fileTail(stderrPath)) };
}

/** The last 2,000 characters of a file (a child's stderr kept there), for an error message. */
function fileTail(path) {
  try {
    return readFileSync(path, 'utf8').slice(-2_000);
  } catch {
    return `(stderr in ${path})`;
  }
}

/**
 * Waits for a line of the child's stdout: one starting with `prefix` (a string) resolves with the
 * rest parsed as JSON, one matching `prefix` (a RegExp) with the match.
 */
export function waitForLine(proc, prefix, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      proc.child.kill('SIGKILL');
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${prefix}\n${proc.stderr()}`));
    }, timeoutMs);
    const onLine = (line) => {
      const match = typeof prefix === 'string' ? line.startsWith(prefix) : prefix.exec(line);
      if (!match) return;
      cleanup();
      if (typeof prefix !== 'string') return resolve(match);
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
      await exitWithin(proc, 10_000);
    },
  };
}

/**
 * Waits up to `graceMs` for the child to exit, then kills it.
 * @returns {Promise<{ code: number | null, signal: string | null, killed: boolean }>}
 */
export async function exitWithin(proc, graceMs) {
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    proc.child.kill('SIGKILL');
  }, graceMs);
  const exit = await proc.exited;
  clearTimeout(timer);
  return { ...exit, killed };
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
