// Part "msw": one create (raw `fetch`) answered by `@plant-store/msw`'s handlers in `setupServer`,
// beside a trivial MSW handler that returns the same JSON, timed call by call in one process
// (lib/msw-bench.mjs). What the shared core adds to a mock; reported, no target.
import { fileURLToPath } from 'node:url';
import { runChild } from '../lib/proc.mjs';
import { contenderTable, fmt, notMeasured, target } from '../lib/report.mjs';

const CHILD = fileURLToPath(new URL('../lib/msw-bench.mjs', import.meta.url));

export const name = 'msw';

export function run({ options, plan }) {
  const config = { calls: plan.clientCalls, rounds: plan.clientRounds };
  return runChild([CHILD, JSON.stringify(config)], { core: options.loadCore, timeoutMs: 120_000 });
}

export function report(outcome, { plan }) {
  const title = `### Mocks: ${fmt.int(plan.clientCalls)} creates (raw fetch) through MSW setupServer`;
  if (!outcome.value) return notMeasured(title, outcome);
  const table = contenderTable(outcome.value, '@plant-store/msw', 'trivial handler');
  return {
    lines: [title, '', ...table.lines],
    targets: [
      target('msw handlers vs trivial handler, per call', fmt.ratio(table.ratio), 'reported, no target', undefined),
    ],
  };
}
