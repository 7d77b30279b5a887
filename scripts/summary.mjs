// Prints `N passed, M failed` summed over vitest JSON reports: the one line CI reads.
//   node scripts/summary.mjs [--status=N] [report.json ...]     (no report named: .vitest-report.json)
// A missing or unreadable report counts as one failure, so a run that executed nothing is never
// mistaken for green.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files.length > 0 ? files : ['.vitest-report.json']) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`${file}: no readable report, counted as one failure`);
    failed += 1;
    continue;
  }
  const suites = report.testResults ?? [];
  // A file that failed to load has no failed test of its own, yet none of its tests ran: count it once.
  const brokenFiles = suites.filter(
    (s) => s.status === 'failed' && !(s.assertionResults ?? []).some((a) => a.status === 'failed'),
  ).length;
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + brokenFiles;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

// vitest exits non-zero on unhandled errors and type errors while its JSON report still says every
// test passed: `--status=N` (the test commands' exit status) makes such a run count one failure.
const status = Number(args.find((a) => a.startsWith('--status='))?.slice('--status='.length) ?? 0);
if (status !== 0 && failed === 0) {
  console.log(`the test command exited ${status} with no failed test (unhandled error, type error or build failure)`);
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
