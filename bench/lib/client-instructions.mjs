// Instructions per call of each client contender, counted by valgrind (cachegrind, no cache
// simulation): unlike time, a count hardly moves when other tenants share the machine, so it is
// the steady figure beside the timed row. A run of `few` calls is subtracted from a run of `many`,
// which leaves out start-up and most of the JIT warm-up. Usage: import { countInstructions }.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readInstructionCount, valgrindNode } from './valgrind.mjs';

const CALLS = fileURLToPath(new URL('./client-calls.mjs', import.meta.url));

function instructions(args, core) {
  const [file, ...rest] = valgrindNode([CALLS, JSON.stringify(args)], core);
  return new Promise((resolve, reject) => {
    execFile(file, rest, { timeout: 300_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const count = readInstructionCount(stderr);
      if (error || count === undefined) reject(new Error(`valgrind: ${error?.message ?? stderr.slice(-300)}`));
      else resolve(count);
    });
  });
}

/** @returns {Promise<{ name: string, perCall: number }[]>} instructions per call, by contender */
export async function countInstructions({ url, token, names, few = 300, many = 1300, core }) {
  const results = [];
  for (const name of names) {
    const small = await instructions({ url, token, name, calls: few }, core);
    const large = await instructions({ url, token, name, calls: many }, core);
    results.push({ name, perCall: (large - small) / (many - few) });
  }
  return results;
}
