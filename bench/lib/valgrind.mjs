// The one way the bench counts instructions: valgrind's cachegrind without cache simulation.
import { hasCommand } from './proc.mjs';

/** Whether valgrind is installed (it is optional: the counts are skipped without it). */
export const hasValgrind = hasCommand('valgrind');

/**
 * `[file, ...args]` that run `node ...argv` under valgrind, pinned to `core` with taskset when one
 * is given.
 */
export function valgrindNode(argv, core) {
  const command = [
    'valgrind',
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    // V8 writes and rewrites machine code at run time.
    '--smc-check=all-non-file',
    process.execPath,
    ...argv,
  ];
  return core === undefined ? command : ['taskset', '-c', String(core), ...command];
}

/** The instruction count valgrind printed on stderr at exit, or undefined. */
export function readInstructionCount(stderr) {
  const match = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  return match ? Number(match[1].replaceAll(',', '')) : undefined;
}
