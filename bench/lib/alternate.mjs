// Times contenders that answer the same call, interleaved call by call (the order flips at every
// step), so that drift (a noisy neighbour, JIT tiers, GC) falls on every contender alike instead of
// on whichever batch of calls ran during a slow spell. Runs in the child processes of the client and
// mocks parts (client-bench.mjs, msw-bench.mjs).
import { median } from './stats.mjs';

/**
 * @param {{ name: string, call(i: number): Promise<void>, enter?(): void }[]} contenders
 *   `enter` runs before each of a contender's calls, outside the timing.
 * @param {{ warmup: number, rounds: number, perRound: number }} plan
 * @returns {Promise<{ name: string, usPerCall: number, cpuUsPerCall: number, rounds: number[], cpuRounds: number[] }[]>}
 *   the median round's wall and CPU µs per call, and every round's (for ratios taken round by round)
 */
export async function alternate(contenders, { warmup, rounds, perRound }) {
  let i = 0;
  for (const contender of contenders) {
    contender.enter?.();
    for (let n = 0; n < warmup; n++) await contender.call(i++);
  }
  const wallMs = contenders.map(() => new Array(rounds).fill(0));
  // CPU time of this process per call: the client's own cost, which other tenants of a shared
  // machine move far less than wall time.
  const cpuUs = contenders.map(() => new Array(rounds).fill(0));
  const last = contenders.length - 1;
  for (let round = 0; round < rounds; round++) {
    for (let n = 0; n < perRound; n++) {
      const flip = (round + n) % 2 === 1;
      for (let j = 0; j <= last; j++) {
        const k = flip ? last - j : j;
        const contender = contenders[k];
        contender.enter?.();
        const cpu = process.cpuUsage();
        const start = performance.now();
        await contender.call(i++);
        wallMs[k][round] += performance.now() - start;
        const used = process.cpuUsage(cpu);
        cpuUs[k][round] += used.user + used.system;
      }
    }
  }
  return contenders.map((contender, k) => {
    const roundsUs = wallMs[k].map((ms) => (ms * 1000) / perRound);
    const cpuRounds = cpuUs[k].map((us) => us / perRound);
    return {
      name: contender.name,
      usPerCall: median(roundsUs),
      cpuUsPerCall: median(cpuRounds),
      rounds: roundsUs,
      cpuRounds,
    };
  });
}
