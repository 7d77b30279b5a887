// Part "bundle": `import { createPlant } from '@plant-store/client'` alone, bundled for the browser,
// minified and gzipped (lib/bundle.mjs). Target: ≤ 4,096 B min+gzip.
import { fileURLToPath } from 'node:url';
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
  if (!outcome.value) return notMeasured(TITLE, outcome, [[WHAT, '≤ 4,096 B']]);
  const b = outcome.value;
  const ok = b.gzip <= 4096;
  return {
    lines: [
      TITLE,
      '',
      '| import | min | min+gzip | measured by | target | met |',
      '|---|--:|--:|---|---|---|',
      `| \`import { createPlant } from '@plant-store/client'\` (browser, ESM) | ${fmt.int(b.min)} B | ${fmt.int(b.gzip)} B | ${b.how} | ≤ 4,096 B min+gzip | ${met(ok)} |`,
      '',
    ],
    targets: [target(WHAT, `${fmt.int(b.gzip)} B`, '≤ 4,096 B', ok)],
  };
}
