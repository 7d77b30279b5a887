// Part "client": sequential `createPlant` calls against a trivial server on the other core, beside
// the same request made by hand with `fetch`, the same two with a 30 s timeout, and openapi-fetch
// alone (lib/client-contenders.mjs), timed call by call; then each one's instructions per call under
// valgrind. Target: createPlant ≤ 1.05x raw fetch, judged on the instruction count where valgrind
// is installed (timed ratios of one build move between runs on a shared machine; counts move less, and
// the two the target compares are counted three times).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countClientInstructions } from '../lib/client-instructions.mjs';
import { hasValgrind, runChild } from '../lib/proc.mjs';
import { contenderTable, errorText, fmt, met, notMeasured, target } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';

const LIB = fileURLToPath(new URL('../lib/', import.meta.url));
/** createPlant / raw fetch, in instructions per call (wall time where valgrind is absent). */
const LIMIT = 1.05;
const LIMIT_TEXT = `≤ ${LIMIT.toFixed(2)}x`;
const COUNTED = ['createPlant', 'raw fetch', 'openapi-fetch', 'createPlant + timeout', 'raw fetch + timeout'];
/** The two the target compares, counted three times each, in turn (lib/client-instructions.mjs). */
const JUDGED = ['createPlant', 'raw fetch'];

export const name = 'client';

export async function run({ options, plan, log }) {
  const trivial = await startServer('trivial', {}, { core: options.serverCore });
  try {
    const config = { url: trivial.url, token: options.token, calls: plan.clientCalls, rounds: plan.clientRounds };
    const contenders = await runChild([join(LIB, 'client-bench.mjs'), JSON.stringify(config)], {
      core: options.loadCore,
      timeoutMs: 120_000,
    });
    let instructions;
    if (options.quick) instructions = { pending: 'not counted in a quick run' };
    else if (!hasValgrind) instructions = { pending: 'valgrind is not installed' };
    else {
      log('bench: client instructions (valgrind, about 10 minutes)');
      instructions = await countClientInstructions({
        url: trivial.url,
        token: options.token,
        names: COUNTED,
        judged: JUDGED,
        core: options.loadCore,
      })
        .then((value) => ({ value }))
        .catch((error) => ({ pending: errorText(error) }));
    }
    return { contenders, instructions };
  } finally {
    await trivial.stop();
  }
}

export function report(outcome, { plan }) {
  const title = `### Client: ${fmt.int(plan.clientCalls)} sequential creates against a trivial node:http server`;
  if (!outcome.value) return notMeasured(title, outcome, [['client createPlant vs raw fetch, per call', LIMIT_TEXT]]);
  const { contenders, instructions } = outcome.value;
  const timed = contenderTable(contenders, 'createPlant', 'raw fetch');
  const counted = instructions.value;
  if (!counted) {
    const ok = Number.isFinite(timed.ratio) ? timed.ratio <= LIMIT : undefined;
    return {
      lines: [
        title,
        '',
        ...timed.lines,
        `Instructions per call: not counted (${instructions.pending}); the target is judged on wall time.`,
        '',
      ],
      targets: [target('client createPlant vs raw fetch, per call, wall time', fmt.ratio(timed.ratio), LIMIT_TEXT, ok)],
    };
  }
  const [ours, raw, openapiFetch, oursTimed, rawTimed] = COUNTED.map((n) => counted.find((r) => r.name === n).perCall);
  const ratio = ours / raw;
  return {
    lines: [
      title,
      '',
      ...timed.lines,
      '| contender | instructions per call (valgrind, user space; the median of its counts) | vs raw fetch | counts |',
      '|---|--:|--:|---|',
      ...COUNTED.map((n) => counted.find((r) => r.name === n)).map(
        (r) =>
          `| ${r.name} | ${fmt.int(r.perCall)} | ${fmt.ratio(r.perCall / raw)} | ${r.passes.map(fmt.int).join(', ')} |`,
      ),
      '',
      `createPlant / raw fetch: **${fmt.ratio(ratio)}** (target ≤ ${LIMIT.toFixed(2)}x: ${met(ratio <= LIMIT)}); with the same 30 s timeout on both, ${fmt.ratio(oursTimed / rawTimed)}; openapi-fetch alone ${fmt.ratio(openapiFetch / raw)}.`,
      '',
    ],
    targets: [
      target(
        'client createPlant vs raw fetch, per call, wall time',
        fmt.ratio(timed.ratio),
        `reported (≤ ${LIMIT.toFixed(2)}x judged on instructions)`,
        undefined,
      ),
      target('client createPlant vs raw fetch, instructions per call', fmt.ratio(ratio), LIMIT_TEXT, ratio <= LIMIT),
    ],
  };
}
