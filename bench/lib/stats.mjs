// How the bench turns rounds into one figure. A shared machine's other tenants take its cores for
// seconds at a time, so every ratio is taken between runs that shared those seconds (within one
// round, or head to head), and the reported figure is a median, never a mean of raw timings.

/** The median of the finite values (NaN when there is none: a contender that never ran). */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `list` in its order in even rounds, reversed in odd ones, so drift lands on every member alike. */
export function alternated(list, round) {
  return round % 2 === 0 ? list : [...list].reverse();
}

/**
 * The median of the geometric means of each two rounds in a row. Consecutive rounds ran the
 * contenders in opposite orders (see `alternated`; head to head, the two start orders), so a pair
 * cancels whatever a contender's place in the order does to it, which the median of single rounds
 * did not: with an odd count of rounds one order weighs more. A failed round leaves its pair one
 * round; an odd count of rounds leaves the last one alone.
 * @param {number[]} rounds per-round ratios (NaN where a round failed)
 * @returns {{ ratio: number, rounds: number[] }}
 */
export function pairMedian(rounds) {
  const pairs = [];
  for (let i = 0; i < rounds.length; i += 2) {
    const pair = rounds.slice(i, i + 2).filter(Number.isFinite);
    if (pair.length > 0) pairs.push(Math.exp(pair.reduce((sum, x) => sum + Math.log(x), 0) / pair.length));
  }
  return { ratio: median(pairs), rounds };
}

/**
 * The ratio a / b of `field` between two series of one-at-a-time rounds: taken within each round
 * (the two ran back to back), then paired (see pairMedian).
 * @param {(object | undefined)[] | undefined} a results by round (undefined where a round failed)
 * @param {(object | undefined)[] | undefined} b
 */
export function pairedRatio(a, b, field = 'rps') {
  if (!a || !b) return { ratio: NaN, rounds: [] };
  return pairMedian(a.map((x, i) => (x && b[i] ? x[field] / b[i][field] : NaN)));
}

/**
 * The ratio a / b of `field` in head-to-head rounds (`{ a, b }` results, undefined for the rounds
 * of a block that failed, so that later blocks' rounds still pair within their own block).
 */
export function headRatio(rounds = [], field = 'rps') {
  return pairMedian(rounds.map((round) => (round ? round.a[field] / round.b[field] : NaN)));
}

/** Ratios taken round by round and reduced to their median (contenders timed call by call). */
export function roundRatio(a, b, field = 'rounds') {
  const rounds = a[field].map((x, i) => x / b[field][i]);
  return { ratio: median(rounds), rounds };
}

/** `low-high` of the finite values, for a per-round spread. */
export function range(values) {
  const finite = values.filter(Number.isFinite);
  return finite.length ? `${Math.min(...finite).toFixed(2)}-${Math.max(...finite).toFixed(2)}` : '—';
}
