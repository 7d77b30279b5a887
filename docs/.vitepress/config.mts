// The documentation site (`npm run docs:build`, `npm run docs:dev`): the repository's own Markdown pages,
// served as they are (./site.ts says which, and where), with a sidebar, local search and an edit link per
// page. Its source directory is the repository's root, so pages keep their paths and their links work
// alike on GitHub, on npm and here; every other Markdown file of the tree is left out.
import { type Dirent, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitepress';
import { asOnGitHub, githubSlug } from './markdown.js';
import { PAGES, pageUrl, REPOSITORY, rewrite, root, sidebar } from './site.js';

/**
 * Markdown files of the tree that are not pages (notes under tmp/, CHANGELOGs), by path. Hidden folders
 * (.changeset) and node_modules VitePress never reads; a folder a test removes meanwhile holds none.
 */
function otherMarkdown(dir = ''): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    if (entry.isDirectory()) return otherMarkdown(path);
    return entry.name.endsWith('.md') && !PAGES.includes(path) ? [path] : [];
  });
}

const description = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { description: string })
  .description;

export default defineConfig({
  title: 'Plant Store',
  description,
  srcDir: '..',
  srcExclude: otherMarkdown(),
  rewrites: rewrite,
  cacheDir: '.vitepress/cache',
  markdown: {
    config: asOnGitHub,
    anchor: { slugify: githubSlug },
    // markdown-it-attrs would take a `{…}` after a heading or a word for attributes; GitHub shows it as text.
    attrs: { disable: true },
  },
  themeConfig: {
    nav: [
      { text: 'Guides', link: pageUrl('packages/client/README.md') },
      { text: 'Reference', link: pageUrl('docs/service.md') },
      { text: 'Performance', link: pageUrl('bench/README.md') },
    ],
    sidebar: sidebar(),
    outline: { level: [2, 3] },
    search: { provider: 'local' },
    // filePath is the page's path in the repository (README.md), not the path it is served at (index.md).
    editLink: { pattern: `${REPOSITORY}/edit/main/:path`, text: 'Edit this page on GitHub' },
    socialLinks: [{ icon: 'github', link: REPOSITORY }],
  },
});
