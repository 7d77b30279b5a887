// Prints `N passed, M failed` from vitest's JSON report: the one line CI reads. A missing or
// unreadable report counts as a failure, so a run that executed nothing is never mistaken for green.
import { readFileSync } from 'node:fs';

let report;
try {
  report = JSON.parse(readFileSync('.vitest-report.json', 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const suites = report.testResults ?? [];
// A file that failed to load has no failed test of its own, yet none of its tests ran: count it once.
const brokenFiles = suites.filter(
  (s) => s.status === 'failed' && !(s.assertionResults ?? []).some((a) => a.status === 'failed'),
).length;
const passed = report.numPassedTests ?? 0;
let failed = (report.numFailedTests ?? 0) + brokenFiles;
// vitest exits non-zero on unhandled errors and type errors while its JSON report still says every
// test passed: `--status=N` (the test command's exit status) makes such a run count one failure.
const status = Number(process.argv.find((a) => a.startsWith('--status='))?.slice('--status='.length) ?? 0);
if (status !== 0 && failed === 0) {
  console.log(`the test command exited ${status} with no failed test (unhandled error, type error or build failure)`);
  failed = 1;
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
