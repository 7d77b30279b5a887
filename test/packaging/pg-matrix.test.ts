// The plumbing of `npm run test:pg-matrix` (scripts/pg-matrix.sh), checked without running it: the runs
// themselves are the matrix's, in CI (.ci/run).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MAJORS } from '../support/embedded-postgres.mjs';
import { repoRoot, runOk } from './helpers.js';

const script = join(repoRoot, 'scripts/pg-matrix.sh');
const reportsOf = async (...majors: string[]) =>
  (await runOk('bash', [script, '--reports', ...majors], { timeoutMs: 10_000 })).stdout.trim().split('\n');

it('plans one run on every major the embedded server comes in, or on those asked for', async () => {
  expect(await reportsOf()).toEqual(MAJORS.map((major) => `.vitest-reports/pg${major}.json`));
  expect(await reportsOf('14', '16')).toEqual(['.vitest-reports/pg14.json', '.vitest-reports/pg16.json']);
});

it('runs test files that exist, and CI sums its reports into the last line', () => {
  const tests = readFileSync(script, 'utf8')
    .match(/^TESTS='(.*)'$/m)![1]!
    .split(' ');
  expect(tests.filter((file) => !existsSync(join(repoRoot, file)))).toEqual([]);
  const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
  expect(ci).toContain('npm run test:pg-matrix');
  expect(ci).toMatch(/mapfile -t pg_reports < <\(bash scripts\/pg-matrix\.sh --reports\)/);
  expect(ci).toMatch(/summary\.mjs .*"\$\{pg_reports\[@\]\}"/);
});
