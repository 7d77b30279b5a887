// The bench's report: figures formatted one way, the tables every part shares, and the results
// block of bench/README.md, which only a full run rewrites (between its two marker comments).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { canPin, cores } from './proc.mjs';
import { roundRatio } from './stats.mjs';

export const README = new URL('../README.md', import.meta.url);
export const START_MARKER = '<!-- bench:results:start -->';
export const END_MARKER = '<!-- bench:results:end -->';

const finite = (format) => (n) => (Number.isFinite(n) ? format(n) : '—');
export const fmt = {
  int: finite((n) => Math.round(n).toLocaleString('en-US')),
  ms: finite((n) => n.toFixed(2)),
  us: finite((n) => n.toFixed(1)),
  ratio: finite((n) => `${n.toFixed(2)}x`),
  mib: finite((n) => n.toFixed(1)),
  pct: finite((n) => `${Math.round(n * 100)}%`),
  rounds: (values) => values.map(finite((n) => n.toFixed(2))).join(', '),
};

/** A target's verdict: yes, **no**, or — where there is no target or no figure. */
export const met = (ok) => (ok === undefined ? '—' : ok ? 'yes' : '**no**');

/** The first line of an error, short enough for a table cell. */
export const errorText = (error) =>
  String(error?.message ?? error)
    .split('\n')[0]
    .slice(0, 160);

/** An error for the log: its message with the end of what the child printed on stderr. */
export const errorDetail = (error) => {
  const text = String(error?.message ?? error);
  return text.length > 1500 ? `${text.slice(0, 160)} … ${text.slice(-1300)}` : text;
};

/** A target row: what, the figure, the target, and whether it is met (undefined: not judged). */
export const target = (what, figure, limit, ok) => ({ what, figure, target: limit, ok });

/** The section of a part that did not run, or failed before it had figures. */
export function notMeasured(title, outcome, pendingTargets = []) {
  if (outcome.skipped)
    return { lines: [title, '', 'not run (not among the parts chosen with --only or BENCH_ONLY)', ''], targets: [] };
  return {
    lines: [title, '', `pending: ${outcome.pending}`, ''],
    targets: pendingTargets.map(([what, limit]) => target(what, 'pending', limit, undefined)),
  };
}

/**
 * A table of contenders timed call by call (lib/alternate.mjs): the ratio of each to `base`, taken
 * round by round, median reported; the headline is `ours` / `base`.
 */
export function contenderTable(results, ours, base) {
  const baseline = results.find((r) => r.name === base);
  const mine = results.find((r) => r.name === ours);
  const wall = roundRatio(mine, baseline);
  return {
    ratio: wall.ratio,
    lines: [
      `| contender | µs per call (median round) | CPU µs per call, this process | vs ${base}, wall | vs ${base}, CPU |`,
      '|---|--:|--:|--:|--:|',
      ...results.map(
        (r) =>
          `| ${r.name} | ${fmt.us(r.usPerCall)} | ${fmt.us(r.cpuUsPerCall)} | ${fmt.ratio(roundRatio(r, baseline).ratio)} | ${fmt.ratio(roundRatio(r, baseline, 'cpuRounds').ratio)} |`,
      ),
      '',
      `${ours} / ${base}: **${fmt.ratio(wall.ratio)}** wall, ${fmt.ratio(roundRatio(mine, baseline, 'cpuRounds').ratio)} CPU; per round (wall): ${wall.rounds.map((x) => x.toFixed(3)).join(', ')}.`,
      '',
    ],
  };
}

/** The machine a run measured on: cores (nproc), CPU model, Node version, platform. */
export function machine() {
  const cpu = cpus()[0]?.model?.trim() ?? 'unknown CPU';
  const pinning = canPin
    ? 'server on core 0, load generator / client on core 1 (taskset)'
    : 'not pinned (taskset or a second core missing)';
  return `${cores} cores (nproc), ${cpu}, Node ${process.version}, ${process.platform} ${process.arch}; ${pinning}`;
}

/** The command that reproduces a run, from its options. */
function command(options) {
  const env = [
    options.quick && 'BENCH_QUICK=1',
    options.profile && 'BENCH_PROFILE=1',
    options.candidate && `BENCH_CANDIDATE=${options.candidate}`,
    ...options.overrides.map((name) => `${name}=${process.env[name]}`),
  ].filter(Boolean);
  const only = options.only ? ` -- --only ${[...options.only].join(',')}` : '';
  return `\`${[...env, 'npm run bench'].join(' ')}${only}\``;
}

/**
 * The results block: when, where and how, the targets, then each part's section.
 * @param {{ startedAt: Date, options: object, sections: { lines: string[], targets: object[] }[] }} run
 */
export function renderResults({ startedAt, options, sections }) {
  const targets = sections.flatMap((section) => section.targets);
  return [
    `- Date: ${startedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    `- Machine: ${machine()}`,
    `- Command: ${command(options)}${options.full ? '' : ' (not a full run: not written to this page)'}`,
    '',
    '### Targets',
    '',
    '| what | figure | target | met |',
    '|---|--:|---|---|',
    ...targets.map((t) => `| ${t.what} | ${t.figure} | ${t.target} | ${met(t.ok)} |`),
    '',
    ...sections.flatMap((section) => section.lines),
  ].join('\n');
}

/** Puts `results` between the markers of bench/README.md, leaving the rest of the page as it is. */
export function writeReadmeResults(results) {
  const page = readFileSync(README, 'utf8');
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`bench/README.md has lost its markers ${START_MARKER} … ${END_MARKER}`);
  const note = '<!-- Written by `npm run bench` on a full run: edits here are overwritten. -->';
  writeFileSync(README, `${page.slice(0, start)}${START_MARKER}\n${note}\n\n${results.trim()}\n\n${page.slice(end)}`);
}
