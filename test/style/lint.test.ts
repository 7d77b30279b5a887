// `npm run lint` (Biome: formatting and lint rules, biome.json) is clean over the whole tree, so a
// change that is not formatted, or breaks a rule, fails `npm test` like any other defect.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('passes biome check over the whole tree', () => {
  const result = spawnSync(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'check', '--colors=off', '.'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`.slice(-6000)).toBe(0);
});
