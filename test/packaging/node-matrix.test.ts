// The plumbing of `npm run test:matrix` (scripts/node-matrix.sh) and of CI's summary line
// (scripts/summary.mjs), checked without downloading anything: the runs themselves are the matrix's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readJson, repoRoot, runOk } from './helpers.js';

const script = join(repoRoot, 'scripts/node-matrix.sh');
const work = mkdtempSync(join(tmpdir(), 'plant-store-summary-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const reportsOf = async (...majors: string[]) =>
  (await runOk('bash', [script, '--reports', ...majors], { timeoutMs: 10_000 })).stdout.trim().split('\n');

/** The last line scripts/summary.mjs prints for these arguments, run in the scratch directory. */
async function summary(...args: string[]): Promise<string> {
  const { stdout } = await runOk(process.execPath, [join(repoRoot, 'scripts/summary.mjs'), ...args], {
    cwd: work,
    timeoutMs: 10_000,
  });
  return stdout.trim().split('\n').at(-1)!;
}

function report(name: string, content: object): string {
  writeFileSync(join(work, name), JSON.stringify(content));
  return name;
}

it('plans HTTP and the MSW suites on msw 3 under Node 22 and 24, the consumer project and the frontend setups', async () => {
  expect(await reportsOf()).toEqual([
    '.vitest-reports/node22-http.json',
    '.vitest-reports/node24-http.json',
    '.vitest-reports/node22-msw3.json',
    '.vitest-reports/node24-msw3.json',
    '.vitest-reports/node22-consumer.json',
    '.vitest-reports/node22-frontend-vitest.json',
    '.vitest-reports/node22-frontend-playwright.json',
    '.vitest-reports/node24-frontend-jest.json',
  ]);
  expect(await reportsOf('24')).toEqual([
    '.vitest-reports/node24-http.json',
    '.vitest-reports/node24-msw3.json',
    '.vitest-reports/node24-frontend-jest.json',
  ]);
});

it('runs every vitest.<name>.config.ts of the repository, and only configs that exist', () => {
  const runs = readFileSync(script, 'utf8').match(/^RUNS='\n([\s\S]*?)^'/m)![1]!;
  const listed = new Set(
    runs
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(/\s+/)[2]),
  );
  // The high-availability suites run once, on Node 20, by `npm run test:ha` (which .ci/run runs).
  const scripts = readJson(join(repoRoot, 'package.json')).scripts as Record<string, string>;
  expect(scripts['test:ha']).toContain('vitest.ha.config.ts');
  const present = readdirSync(repoRoot).filter(
    (f) => /^vitest\.[\w-]+\.config\.ts$/.test(f) && f !== 'vitest.ha.config.ts',
  );
  expect(present.filter((f) => !listed.has(f))).toEqual([]);
  expect([...listed].filter((f) => f !== 'vitest.config.ts' && !present.includes(f!))).toEqual([]);
});

it('sums passed, failed and skipped tests over several reports', async () => {
  const a = report('a.json', { numPassedTests: 10, numFailedTests: 1, numPendingTests: 2, testResults: [] });
  const b = report('b.json', { numPassedTests: 5, numFailedTests: 0, numTodoTests: 1, testResults: [] });
  expect(await summary(a, b)).toBe('15 passed, 1 failed, 3 skipped');
});

it('counts a report that is missing or unreadable as one failure each', async () => {
  const good = report('good.json', { numPassedTests: 4, numFailedTests: 0, testResults: [] });
  writeFileSync(join(work, 'torn.json'), '{"numPassedTests": 4');
  expect(await summary(good, 'torn.json', 'absent.json')).toBe('4 passed, 2 failed');
});

it('counts a test file that failed to load once, and a failing exit status with no failed test as one failure', async () => {
  const broken = report('broken.json', {
    numPassedTests: 3,
    numFailedTests: 0,
    testResults: [
      { status: 'failed', assertionResults: [] },
      { status: 'passed', assertionResults: [{ status: 'passed' }] },
    ],
  });
  expect(await summary(broken)).toBe('3 passed, 1 failed');
  const clean = report('clean.json', { numPassedTests: 3, numFailedTests: 0, testResults: [] });
  expect(await summary('--status=0', clean)).toBe('3 passed, 0 failed');
  expect(await summary('--status=1', clean)).toBe('3 passed, 1 failed');
});

it('reads .vitest-report.json when no report is named, as `npm test` calls it', async () => {
  report('.vitest-report.json', { numPassedTests: 7, numFailedTests: 0, testResults: [] });
  expect(await summary('--status=0')).toBe('7 passed, 0 failed');
});
