import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const page = readFileSync(new URL('../../docs/hosting.md', import.meta.url), 'utf8');

it.each(['bun-server', 'deno-server', 'worker'])(
  'shows %s.ts, the file the runtime tests run, to the letter in docs/hosting.md',
  (name) => {
    const shown = new RegExp(
      `<!-- example:${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- /example:${name} -->`,
    ).exec(page)?.[1];
    expect(shown).toBe(readFileSync(new URL(`./${name}.ts`, import.meta.url), 'utf8'));
  },
);

// The framework examples are shown under `<!-- file: -->` markers, which the snippet test compares.
it('names each framework at the version the framework tests install', () => {
  const versionOf = (name: string) =>
    JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  const table = [...page.matchAll(/^\| (Express|Fastify|Hono|Koa|Next\.js) \| `([^`]+)` \|/gm)].map((m) => [
    m[1],
    m[2],
  ]);
  expect(table).toEqual([
    ['Express', `express@${versionOf('express')}`],
    ['Fastify', `fastify@${versionOf('fastify')}`],
    ['Hono', `hono@${versionOf('hono')}, @hono/node-server@${versionOf('@hono/node-server')}`],
    ['Koa', `koa@${versionOf('koa')}`],
    ['Next.js', `next@${versionOf('next')}`],
  ]);
});
