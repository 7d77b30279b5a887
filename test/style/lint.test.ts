// `npm run lint` is clean over the whole tree, so a change that breaks it fails `npm test` like any
// other defect: Biome (formatting and lint rules, biome.json) and knip (no unused file, export or
// dependency, knip.jsonc).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function run(script: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}`.slice(-6000) };
}

it('passes biome check over the whole tree', () => {
  const { status, output } = run('node_modules/@biomejs/biome/bin/biome', ['check', '--colors=off', '.']);
  expect(status, output).toBe(0);
});

it('passes knip: no unused file, export or dependency', () => {
  const { status, output } = run('node_modules/knip/bin/knip.js', ['--no-progress', '--no-config-hints']);
  expect(status, output).toBe(0);
});
