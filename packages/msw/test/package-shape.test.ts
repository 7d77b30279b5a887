import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

const dist = new URL('../dist/', import.meta.url);

// The handlers run in browsers (setupWorker) as well as Node: nothing of node:* or of the server may
// reach the published bundle, whatever the tsconfig let through.
it.each(['index.js', 'index.cjs'])('keeps dist/%s free of node: imports and of the server package', async (file) => {
  const code = await readFile(new URL(file, dist), 'utf8');
  expect(code).not.toMatch(/["'](node:|fs["'/]|http["'/]|@plant-store\/server)/);
  expect(code).toMatch(/@plant-store\/core/);
});

it('declares msw as a peer and depends on @plant-store/core only', async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@plant-store/core']);
  expect(pkg.peerDependencies?.msw).toMatch(/^\^2\./);
});
