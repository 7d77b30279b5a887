// The pages are GitHub Markdown, and Vue compiles what VitePress makes of them; two things differ:
//
// Links between pages are written for GitHub and npm: relative paths to .md files and to any file of the
// repository, or (the packages' pages, which npm shows apart from the repository) full URLs of files on
// GitHub. On the site, a link to one of its pages, either way, goes where that page is served (a README.md
// is served as its folder's index), and a link to any other file or folder goes to it on GitHub. A link to
// nothing in the repository fails the build naming the page, as VitePress fails it on a dead page link.
//
// A heading's id is GitHub's, so a `#fragment` written for GitHub finds its heading here too:
// "The service's rules" is `#the-services-rules`, where VitePress would make `#the-service-s-rules`.
//
// `{{` in prose or in inline code is text on GitHub and an interpolation to Vue (`{{ 1 + 1 }}` would show
// `2`): it is written as character references, which show the same and Vue leaves alone. (A bare `<word>`
// is hidden by GitHub and fails the build here, naming the page and line: it wants backticks.)
import { existsSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import type { MarkdownRenderer } from 'vitepress';
import { PAGES, REPOSITORY, resolveInRepository, rewrite, root } from './site.js';

/** `https:`, `mailto:`, `//host`: links that leave the repository. */
const EXTERNAL = /^([a-z][a-z\d+.-]*:|\/\/)/i;

/** A file or folder of the repository on GitHub: its path (none for the front page) and `#fragment`. */
const ON_GITHUB = new RegExp(`^${REPOSITORY.replace(/[.]/g, '\\.')}(?:/(?:blob|tree)/main/([^?#]*))?(#.*)?$`);

/** Where a link written in page `source` goes on the site. */
function siteHref(source: string, href: string): string {
  const onGitHub = ON_GITHUB.exec(href);
  if (onGitHub !== null) {
    // `#readme` is where GitHub shows the front page under the repository's files.
    const hash = onGitHub[2] === '#readme' ? '' : (onGitHub[2] ?? '');
    return siteHref(source, `/${onGitHub[1] ?? ''}${hash}`);
  }
  if (EXTERNAL.test(href)) return href;
  const { path, hash } = resolveInRepository(source, href);
  // A folder whose README.md is a page (`../examples/react`, the root) is that page, as GitHub shows it.
  const page = [path, posix.join(path, 'README.md')].find((candidate) => PAGES.includes(candidate));
  if (page !== undefined) return posix.relative(posix.dirname(rewrite(source)), rewrite(page)) + hash;
  if (path === '..' || path.startsWith('../') || !existsSync(join(root, path))) {
    throw new Error(`${source} links to ${href}, and ${path} is not in the repository`);
  }
  const kind = statSync(join(root, path)).isDirectory() ? 'tree' : 'blob';
  return `${REPOSITORY}/${kind}/main/${path}${hash}`;
}

/**
 * The id GitHub gives a heading of this text: lowercased, punctuation and symbols dropped, each space a
 * hyphen (a second heading of the same text gets `-1`, as VitePress does too).
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A markdown-it plugin: the pages' links and braces, made right for the site. */
export function asOnGitHub(md: MarkdownRenderer): void {
  for (const rule of ['text', 'code_inline'] as const) {
    const render = md.renderer.rules[rule];
    if (render === undefined) throw new Error(`markdown-it has no ${rule} rule to wrap`);
    md.renderer.rules[rule] = (...args) => render(...args).replace(/\{\{/g, '&#123;&#123;');
  }
  md.core.ruler.push('plant-store-links', (state) => {
    // A page's own path: `realPath` while building pages (`path` is then the rewritten one), `path` while
    // the local search indexes them.
    const env = state.env as { realPath?: string; path?: string };
    const file = env.realPath ?? env.path;
    if (file === undefined) return;
    const source = relative(root, file).split(sep).join('/');
    for (const block of state.tokens) {
      for (const token of block.children ?? []) {
        const href = token.type === 'link_open' ? token.attrGet('href') : null;
        if (href === null || href === '' || href.startsWith('#')) continue;
        token.attrSet('href', siteHref(source, href));
      }
    }
  });
}
