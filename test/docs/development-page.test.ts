// docs/development.md and the front page list what the tree holds, so neither can fall behind it: every
// package (with its npm name, and packed by `npm run pack:all`), every folder of test/, every page of docs/.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './blocks.js';

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const folders = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((name) => !name.startsWith('.') && statSync(join(root, dir, name)).isDirectory())
    .sort();

/** The first cell of each row of the table between `<!-- list:<name> -->` and its end marker, backticks and links undone. */
function listed(page: string, name: string): string[] {
  const text = read(page);
  const table = new RegExp(`<!-- list:${name} -->\\n([\\s\\S]*?)<!-- /list:${name} -->`).exec(text)?.[1];
  expect(table, `${page} has a list:${name} table`).toBeDefined();
  return table!
    .split('\n')
    .slice(2)
    .filter((row) => row.startsWith('|'))
    .map((row) =>
      row
        .split('|')[1]!
        .trim()
        .replace(/^`|`$/g, '')
        .replace(/^\[([^\]]+)\]\(.*\)$/, '$1'),
    )
    .sort();
}

const packages = folders('packages');
const packageNames = packages.map(
  (folder) => (JSON.parse(read(`packages/${folder}/package.json`)) as { name: string }).name,
);
const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort();

describe('docs/development.md', () => {
  it('lists every package folder, with its npm name', () => {
    expect(listed('docs/development.md', 'packages')).toEqual(packages.map((folder) => `packages/${folder}`));
    const text = read('docs/development.md');
    for (const name of packageNames) expect(text).toContain(`\`${name}\``);
  });

  it('lists every folder of test/', () => {
    expect(listed('docs/development.md', 'tests')).toEqual(folders('test').map((folder) => `test/${folder}`));
  });

  it('lists every page of docs/', () => {
    expect(listed('docs/development.md', 'docs')).toEqual(docs);
  });

  it('has npm run pack:all pack every package, so each has its tarball', () => {
    const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['pack:all']!;
    const packed = [...script.matchAll(/-w (packages\/[\w-]+)/g)].map((match) => match[1]).sort();
    expect(packed).toEqual(packages.map((folder) => `packages/${folder}`));
  });
});

describe('the front page', () => {
  const readme = read('README.md');
  const map = /## How the packages fit\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const readOn = /## Read on\n([\s\S]*)$/.exec(readme)?.[1] ?? '';

  it.each(packageNames)('shows %s in the map of how the packages fit', (name) => {
    expect(map).toContain(name);
  });

  it.each(packages)('links packages/%s/README.md under Read on', (folder) => {
    expect(readOn).toContain(`(packages/${folder}/README.md)`);
  });

  it.each(docs)('links docs/%s under Read on', (page) => {
    expect(readOn).toContain(`(docs/${page})`);
  });
});
