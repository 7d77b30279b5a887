// Instructions per call of each client contender, counted by valgrind (cachegrind, no cache
// simulation): unlike time, a count hardly moves when other tenants share the machine, so the
// client's target is judged on it. A run of `few` calls is subtracted from a run of `many`, which
// leaves out start-up and the JIT warm-up: with 300 and 1,300 calls the optimising compiles of the
// calls' code still fell between the two and doubled every contender's count per call (createPlant
// 3.3M, raw fetch 3.0M: 1.09x), where 1,300 and 3,300 give the steady state (1.5M and 1.46M: 1.05x).
// One contender's count still moves by 2-4% from run to run of the same build (running V8's compiler
// and collector on the main thread, with --single-threaded or --predictable, did not narrow it), so
// the contenders a target judges are counted `passes` times, in turn with each other, and each one's
// median is taken.
import { fileURLToPath } from 'node:url';
import { exitWithin, readInstructionCount, spawnNode } from './proc.mjs';
import { median } from './stats.mjs';

const CHILD = fileURLToPath(new URL('./client-bench.mjs', import.meta.url));

async function instructions(config, core) {
  const proc = spawnNode([CHILD, JSON.stringify(config)], { core, valgrind: true });
  const { code, signal } = await exitWithin(proc, 300_000);
  const count = readInstructionCount(proc.stderr());
  if (code !== 0 || count === undefined) throw new Error(`valgrind (${code ?? signal}): ${proc.stderr().slice(-300)}`);
  return count;
}

/**
 * Every contender of `names` counted once, then those of `judged` again until each has `passes`
 * counts, in turn.
 * @returns {Promise<{ name: string, perCall: number, passes: number[] }[]>} instructions per call by
 *   contender: the median of its passes, and every pass
 */
export async function countClientInstructions({
  url,
  token,
  names,
  judged = [],
  passes = 3,
  few = 1300,
  many = 3300,
  core,
}) {
  const counted = new Map(names.map((name) => [name, []]));
  const order = [...names];
  for (let pass = 1; pass < passes; pass++) order.push(...judged);
  for (const name of order) {
    const small = await instructions({ url, token, name, calls: few }, core);
    const large = await instructions({ url, token, name, calls: many }, core);
    counted.get(name).push((large - small) / (many - few));
  }
  return names.map((name) => ({ name, perCall: median(counted.get(name)), passes: counted.get(name) }));
}
