// Part "bundle": `import { createPlant } from '@plant-store/client'` alone, bundled for the browser,
// minified and gzipped (lib/bundle.mjs). Target: the client's own budget (BUDGET of its size script).
import { fileURLToPath } from 'node:url';
import { BUDGET } from '../../packages/client/scripts/bundle-size.mjs';
import { runChild } from '../lib/proc.mjs';
import { fmt, met, notMeasured, target } from '../lib/report.mjs';

const CHILD = fileURLToPath(new URL('../lib/bundle.mjs', import.meta.url));
const TITLE = '### Bundle';
const WHAT = '`createPlant` alone, browser, min+gzip';

export const name = 'bundle';

export function run() {
  return runChild([CHILD], { timeoutMs: 60_000 });
}

export function report(outcome) {
  if (!outcome.value) return notMeasured(TITLE, outcome, [[WHAT, `≤ ${fmt.int(BUDGET)} B`]]);
  const b = outcome.value;
  const ok = b.gzip <= BUDGET;
  return {
    lines: [
      TITLE,
      '',
      '| import | min | min+gzip | measured by | target | met |',
      '|---|--:|--:|---|---|---|',
      `| \`import { createPlant } from '@plant-store/client'\` (browser, ESM) | ${fmt.int(b.min)} B | ${fmt.int(b.gzip)} B | ${b.how} | ≤ ${fmt.int(BUDGET)} B min+gzip | ${met(ok)} |`,
      '',
    ],
    targets: [target(WHAT, `${fmt.int(b.gzip)} B`, `≤ ${fmt.int(BUDGET)} B`, ok)],
  };
}
