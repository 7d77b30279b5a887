// What the documentation site is made of: the pages the project publishes (the front page, each package's
// npm page, docs/, the bench and the examples' READMEs, as scripts/published-pages.mjs lists them), the address
// each is served at, and the sidebar that reaches every one. The pages stay plain GitHub Markdown: all the
// site needs is decided here and in ./markdown.ts, never in a page.
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { DefaultTheme } from 'vitepress';
import { publishedPages, root } from '../../scripts/published-pages.mjs';

export { root };

/** The repository on GitHub, from the packages' `repository` field (`git+https://…/plant-store.git`). */
export const REPOSITORY = (
  JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')) as { repository: { url: string } }
).repository.url
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');

/** Every page of the site, by its path in the repository. */
export const PAGES: readonly string[] = publishedPages();

/** Where a page's source is served from: a folder's README.md is its index, so `packages/client/` is its page. */
export function rewrite(source: string): string {
  return source.replace(/(^|\/)README\.md$/, '$1index.md');
}

/** The address the built site serves a page at: `/`, `/packages/client/`, `/docs/service.html`. */
export function pageUrl(source: string): string {
  return `/${rewrite(source)}`.replace(/(^|\/)index\.md$/, '$1').replace(/\.md$/, '.html');
}

/** A page's first `# ` heading, as the sidebar names it. */
function titleOf(source: string): string {
  const heading = /^# (.+)$/m.exec(readFileSync(join(root, source), 'utf8'))?.[1];
  if (heading === undefined) throw new Error(`${source} has no "# " heading for the sidebar to name it by`);
  return heading.replace(/`/g, '');
}

type Item = DefaultTheme.SidebarItem;

/**
 * The pages the Guides and Reference groups name (`page#section` for a section), with the sidebar's words
 * for them, in order. A page of docs/ that neither names nor Contributing lands at the end of Reference.
 */
const GUIDES: ReadonlyArray<readonly [string, string]> = [
  ['packages/client/README.md', 'Calling the service'],
  ['docs/testing.md', 'Mocking in tests'],
  ['docs/frontend.md', 'Forms and frontends'],
  ['docs/production.md', 'Running in production'],
];
const REFERENCE: ReadonlyArray<readonly [string, string]> = [
  ['docs/service.md', 'Service rules'],
  ['packages/server/README.md#options', 'Server flags'],
  ['docs/postgres.md', 'PostgreSQL'],
  ['docs/security.md', 'Security'],
  ['docs/operations.md', 'Operations'],
  ['docs/observability.md', 'Observability'],
  ['docs/hosting.md', 'Hosting the core'],
  ['docs/stores.md', 'Stores'],
  ['docs/durability.md', 'Durability'],
  ['docs/hardening.md', 'Hardening'],
];
const CONTRIBUTING = 'docs/development.md';

const pageOf = (target: string) => target.replace(/#.*$/, '');

/** Sidebar items for `[page#section, text]` pairs whose page exists (a page still being written is left out). */
function items(entries: ReadonlyArray<readonly [string, string]>): Item[] {
  return entries
    .filter(([target]) => PAGES.includes(pageOf(target)))
    .map(([target, text]) => ({ text, link: pageUrl(pageOf(target)) + target.slice(pageOf(target).length) }));
}

const pagesUnder = (folder: string) => PAGES.filter((page) => page.startsWith(`${folder}/`));

/**
 * The sidebar: Guides, Packages, Reference, Performance, Contributing and Examples. The packages, the
 * examples and every page of docs/ the lists above do not name come from the tree, so a new page is never
 * left out of it.
 */
export function sidebar(): Item[] {
  const named = new Set([...GUIDES, ...REFERENCE].map(([target]) => pageOf(target)).concat(CONTRIBUTING));
  const otherDocs = pagesUnder('docs').filter((page) => !named.has(page));
  const byTitle = (page: string): Item => ({ text: titleOf(page), link: pageUrl(page) });
  return [
    { text: 'Guides', items: items(GUIDES) },
    { text: 'Packages', items: pagesUnder('packages').map(byTitle) },
    { text: 'Reference', items: [...items(REFERENCE), ...otherDocs.map(byTitle)] },
    { text: 'Performance', items: [{ text: 'Benchmarks', link: pageUrl('bench/README.md') }] },
    { text: 'Contributing', items: [{ text: 'Working on this repository', link: pageUrl(CONTRIBUTING) }] },
    { text: 'Examples', collapsed: true, items: pagesUnder('examples').map(byTitle) },
  ];
}

/** Where a link written in `source` (relative, as on GitHub) points in the repository, and its `#fragment`. */
export function resolveInRepository(source: string, href: string): { path: string; hash: string } {
  const at = href.search(/[?#]/);
  const [path, hash] = at === -1 ? [href, ''] : [href.slice(0, at), href.slice(at)];
  const joined = path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(source), path);
  return { path: posix.normalize(decodeURI(joined)).replace(/\/$/, ''), hash };
}
