// The one way the bench counts instructions: valgrind's cachegrind without cache simulation.

/** The command prefix: `[...valgrindCommand, node, script, ...]`. */
export const valgrindCommand = [
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
