// The Markdown pages the project publishes, found by walking the tree so a new page counts the day it is
// added: the front page, each package's npm page, docs/, the bench's README and the examples' READMEs.
// The documentation site is made of them, and the page tests check each.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, with a trailing slash. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** Every published page, by its path from the repository's root. */
export function publishedPages() {
  const pages = ['README.md', 'bench/README.md'];
  for (const name of readdirSync(join(root, 'packages')).sort()) {
    if (existsSync(join(root, 'packages', name, 'README.md'))) pages.push(`packages/${name}/README.md`);
  }
  for (const name of readdirSync(join(root, 'docs')).sort()) if (name.endsWith('.md')) pages.push(`docs/${name}`);
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'README.md') pages.push(path);
    }
  };
  walk('examples');
  return pages;
}
