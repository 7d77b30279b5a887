// The README's test command (`npm test`): regenerate-check, build, then every vitest suite once.
// vitest also writes its JSON report, from which scripts/summary.mjs prints the line CI reads.
import { spawnSync } from 'node:child_process';

const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { stdio: 'inherit', shell: false });
  return result.status ?? 1;
};

let status = run('npm', ['run', 'build', '--silent']);
if (status === 0) {
  status = run('npx', [
    'vitest', 'run',
    '--reporter=default',
    '--reporter=json',
    '--outputFile.json=.vitest-report.json',
    ...process.argv.slice(2),
  ]);
} else {
  console.error('build failed; tests not run');
}
run('node', ['scripts/summary.mjs']);
process.exit(status);
