// The repository stands alone: nothing in its tree reads or cites a file outside it, and nothing in a
// packed tarball cites a file the tarball does not ship (a user reading a .d.ts or README on npm has the
// package only). Links are fine when they are absolute URLs.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packedTarballs, publishedPackages, repoRoot, scratchDirectory } from './helpers.js';

// Written in pieces so that this file does not match itself.
const outside = new RegExp(
  [
    String.raw`\.\./shared`,
    ['DECISIONS', 'md'].join(String.raw`\.`),
    ['plant-store-service', 'md'].join(String.raw`\.`),
    ['', 'work', ''].join('/'),
  ].join('|'),
);
/** Repository paths a shipped file could cite, unless they are part of an absolute URL. */
const repositoryPath = new RegExp(
  String.raw`(?<![\w/.:-])(?:(?:docs|bench|test|scripts|examples|packages)/[\w./-]+|openapi\.yaml|` +
    ['DECISIONS', 'md'].join(String.raw`\.`) +
    ')',
  'g',
);

const textFile = (path: string) => !/\.(png|jpe?g|gif|ico|woff2?|tgz|gz)$/i.test(path);

function hits(text: string, pattern: RegExp): string[] {
  return text.split('\n').flatMap((line, i) => (pattern.test(line) ? [`${i + 1}: ${line.trim().slice(0, 160)}`] : []));
}

describe('the repository', () => {
  it('reads and cites no file outside itself, in any tracked or new file', () => {
    const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((path) => path !== '' && textFile(path));
    const found: string[] = [];
    for (const path of listed) {
      const full = join(repoRoot, path);
      let text: string;
      try {
        if (!statSync(full).isFile()) continue;
        text = readFileSync(full, 'utf8');
      } catch {
        continue; // deleted in the working tree
      }
      for (const hit of hits(text, outside)) found.push(`${path}:${hit}`);
    }
    expect(found).toEqual([]);
  });
});

describe('the packed tarballs', () => {
  const work = scratchDirectory('plant-store-stands-alone-');
  const unpacked = new Map<string, string>();

  beforeAll(async () => {
    for (const { name, tarball } of await packedTarballs(join(work, 'tarballs'))) {
      const into = join(work, name.replace('/', '__'));
      execFileSync('mkdir', ['-p', into]);
      execFileSync('tar', ['-xzf', tarball, '-C', into]);
      unpacked.set(name, join(into, 'package'));
    }
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it.each(publishedPackages)('$name cites no file it does not ship, and nothing outside the repository', ({ name }) => {
    const root = unpacked.get(name)!;
    const shipped = new Set(walk(root).map((path) => relative(root, path)));
    const found: string[] = [];
    for (const path of shipped) {
      if (!textFile(path)) continue;
      const text = readFileSync(join(root, path), 'utf8');
      for (const hit of hits(text, outside)) found.push(`${path}:${hit}`);
      for (const line of text.split('\n')) {
        // package.json's repository.directory names the package's folder in the repository, by design.
        if (path === 'package.json' && line.includes('"directory"')) continue;
        for (const match of line.matchAll(repositoryPath)) {
          if (!shipped.has(match[0])) found.push(`${path}: cites ${match[0]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
