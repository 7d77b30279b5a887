// The README's test command (`npm test`): build the packages, then every vitest project once (the spec suite
// checks generated-file drift). vitest writes a JSON report, from which scripts/summary.mjs prints the line
// CI reads; before it, the ten slowest test files and the suites skipped for a program the machine lacks.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { stdio: 'inherit', shell: false });
  return result.status ?? 1;
};

// A report left by an earlier run must never stand in for this one.
rmSync('.vitest-report.json', { force: true });

let status = run('npm', ['run', 'build', '--silent']);
if (status === 0) {
  status = run('npx', [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=./test/support/slowest-files-reporter.ts',
    '--reporter=json',
    '--outputFile.json=.vitest-report.json',
    ...process.argv.slice(2),
  ]);
} else {
  console.error('build failed; tests not run');
}
run('node', ['scripts/summary.mjs', `--status=${status}`]);
process.exit(status);
