import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const page = readFileSync(new URL('../../docs/hosting.md', import.meta.url), 'utf8');
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The block of `lang` between `<!-- example:NAME -->` and `<!-- /example:NAME -->`, as the page shows it. */
function shown(name: string, lang: string): string | undefined {
  const marker = literal(name);
  return new RegExp(
    `<!-- example:${marker} -->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\`\\n<!-- /example:${marker} -->`,
  ).exec(page)?.[1];
}

it.each(['bun-server', 'deno-server', 'worker'])(
  'shows %s.ts, the file the runtime tests run, to the letter in docs/hosting.md',
  (name) => {
    expect(shown(name, 'ts')).toBe(readFileSync(new URL(`./${name}.ts`, import.meta.url), 'utf8'));
  },
);

it.each([
  'express/server.mjs',
  'fastify/server.mjs',
  'hono/server.mjs',
  'koa/server.mjs',
  'next/app/plant-api/[...path]/route.js',
  'next/app/notes/route.js',
])('shows examples/frameworks/%s, the file the framework tests run, to the letter in docs/hosting.md', (path) => {
  expect(shown(`frameworks/${path}`, 'js')).toBe(
    readFileSync(new URL(`../../examples/frameworks/${path}`, import.meta.url), 'utf8'),
  );
});

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
