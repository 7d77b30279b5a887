// Times contenders that answer the same call, in alternating order over several rounds, so that
// drift (a noisy neighbour, JIT tiers, GC) falls on both sides instead of on whichever ran second.

/**
 * @param {{ name: string, call(i: number): Promise<void>, enter?(): void }[]} contenders
 *   `enter` runs before each batch of a contender's calls, outside the timing.
 * @param {{ warmup: number, rounds: number, perRound: number }} plan
 * @returns {Promise<{ name: string, usPerCall: number, cpuUsPerCall: number, rounds: number[] }[]>}
 *   the median round's wall and CPU µs per call
 */
export async function alternate(contenders, { warmup, rounds, perRound }) {
  let i = 0;
  for (const contender of contenders) {
    contender.enter?.();
    for (let n = 0; n < warmup; n++) await contender.call(i++);
  }
  const perRoundUs = contenders.map(() => []);
  // CPU time of this process per call: the client's own cost, which other tenants of a shared
  // machine move far less than wall time.
  const perRoundCpuUs = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? contenders.map((_, k) => k) : contenders.map((_, k) => contenders.length - 1 - k);
    for (const k of order) {
      const contender = contenders[k];
      contender.enter?.();
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let n = 0; n < perRound; n++) await contender.call(i++);
      perRoundUs[k].push(((performance.now() - start) * 1000) / perRound);
      const used = process.cpuUsage(cpu);
      perRoundCpuUs[k].push((used.user + used.system) / perRound);
    }
  }
  return contenders.map((contender, k) => ({
    name: contender.name,
    usPerCall: median(perRoundUs[k]),
    cpuUsPerCall: median(perRoundCpuUs[k]),
    rounds: perRoundUs[k],
  }));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
