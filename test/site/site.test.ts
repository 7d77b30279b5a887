// The documentation site as a reader gets it: `npm run docs:build` into a folder of the test's own (a
// developer's docs/.vitepress/dist and `npm run docs:dev` are left alone), served from 127.0.0.1 and opened
// in Chromium. From the home page every link of the site is followed, breadth-first: each page must answer
// 200 with content (not VitePress's 404 page) and hold every `#fragment` a link names; every page of docs/,
// every package's page and the bench must be reached, named in the sidebar and edited on GitHub as the file
// it is (a README.md, not the index.md it is served as); the local search must find a page by a word of it.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageUrl, REPOSITORY, root } from '../../docs/.vitepress/site.js';
import { launchChromium } from '../contract/browser/chromium.js';

/** Pages loaded at once: enough to overlap the waits, few enough for two cores. */
const TABS = 4;

/** The word the search is asked for, and the page that must be among its results. */
const SEARCH = { word: 'PgBouncer', page: 'docs/postgres.md' } as const;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Serves the built site as a static host does: a folder's index.html for its path, and the site's own
 * 404.html with status 404 for anything that is not a file.
 */
function serveSite(dist: string): Server {
  return createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://site').pathname);
    const file = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
    const found = file.startsWith(dist) && statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
    readFile(found ?? join(dist, '404.html')).then(
      (body) => {
        const type = TYPES[extname(found ?? '404.html')] ?? 'application/octet-stream';
        // Assets are named by their hash, as a host serves them: cached for good.
        const cache = path.startsWith('/assets/') ? 'max-age=31536000, immutable' : 'no-cache';
        response.writeHead(found === undefined ? 404 : 200, { 'content-type': type, 'cache-control': cache }).end(body);
      },
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
}

/** What one page of the site holds, as Chromium shows it. */
interface Visit {
  readonly status: number | undefined;
  readonly notFound: boolean;
  readonly heading: boolean;
  /** Every `a[href]` of the page, absolute. */
  readonly links: string[];
  /** Where the page's "Edit this page" link goes. */
  readonly editLink: string | undefined;
  /** Every element id of the page, for the fragments links name. */
  readonly ids: Set<string>;
  /** Errors the page's scripts threw. */
  readonly errors: string[];
  /** How many images the page shows, and those that did not load, by their source. */
  readonly images: number;
  readonly brokenImages: string[];
  /** Why the page did not load at all. */
  readonly failure?: string;
}

/** Loads `url` in a tab of its own, so a page that fails cannot disturb the next. */
async function visit(context: BrowserContext, url: string): Promise<Visit> {
  const errors: string[] = [];
  const tab = await context.newPage();
  tab.setDefaultTimeout(20_000);
  tab.on('pageerror', (error) => errors.push(error.message));
  try {
    const response = await tab.goto(url, { waitUntil: 'load' });
    const shown = await tab.evaluate(() => ({
      notFound: document.querySelector('.NotFound') !== null,
      heading: document.querySelector('main h1') !== null,
      editLink: document.querySelector<HTMLAnchorElement>('a.edit-link-button')?.href,
      links: [...document.querySelectorAll('a[href]')].map((anchor) => (anchor as HTMLAnchorElement).href),
      ids: [...document.querySelectorAll('[id]')].map((element) => element.id),
      images: document.querySelectorAll('main img').length,
      brokenImages: [...document.querySelectorAll('img')]
        .filter((image) => !image.complete || image.naturalWidth === 0)
        .map((image) => image.getAttribute('src') ?? '(no src)'),
    }));
    return { ...shown, status: response?.status(), ids: new Set(shown.ids), errors };
  } catch (error) {
    // A page that does not load (a timeout, a crash) is a problem to report with the rest, not the end.
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    const ids = new Set<string>();
    return {
      status: undefined,
      notFound: false,
      heading: false,
      editLink: undefined,
      links: [],
      ids,
      errors,
      images: 0,
      brokenImages: [],
      failure: message,
    };
  } finally {
    await tab.close();
  }
}

/** Every page reached from `home` by the site's own links, and what is wrong with any of them. */
async function crawl(browser: Browser, home: string): Promise<{ visits: Map<string, Visit>; problems: string[] }> {
  const origin = new URL(home).origin;
  // Each page, by its path, with the page that linked it first; and each fragment a link names.
  const linkedFrom = new Map<string, string>([[new URL(home).pathname, '(the start)']]);
  const fragments: { path: string; hash: string; from: string }[] = [];
  const visits = new Map<string, Visit>();
  const problems: string[] = [];
  // One context: its tabs share a cache, so the site's scripts are fetched once.
  const context = await browser.newContext();
  let level = [new URL(home).pathname];
  while (level.length > 0) {
    const queue = [...level];
    await Promise.all(
      Array.from({ length: TABS }, async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          visits.set(path, await visit(context, origin + path));
        }
      }),
    );
    const next: string[] = [];
    for (const path of level) {
      const page = visits.get(path)!;
      const from = `${path} (linked from ${linkedFrom.get(path)})`;
      if (page.failure !== undefined) problems.push(`${from} did not load: ${page.failure}`);
      else if (page.status !== 200) problems.push(`${from} answered ${page.status}`);
      else if (page.notFound) problems.push(`${from} shows VitePress's 404 page`);
      else if (!page.heading) problems.push(`${from} has no heading: the page did not render`);
      for (const error of page.errors) problems.push(`${from} threw in the browser: ${error}`);
      for (const image of page.brokenImages) problems.push(`${from} shows an image that did not load: ${image}`);
      for (const link of page.links.map((href) => new URL(href))) {
        if (link.origin !== origin) continue;
        if (link.hash !== '') fragments.push({ path: link.pathname, hash: link.hash, from: path });
        if (linkedFrom.has(link.pathname)) continue;
        linkedFrom.set(link.pathname, path);
        next.push(link.pathname);
      }
    }
    level = next;
  }
  await context.close();
  for (const { path, hash, from } of fragments) {
    const id = decodeURIComponent(hash.slice(1));
    const target = visits.get(path);
    if (target?.status === 200 && !target.ids.has(id))
      problems.push(`${from} links to ${path}${hash}, which has no #${id}`);
  }
  return { visits, problems: [...new Set(problems)] };
}

/** The pages the site must reach: every page of docs/, every package's page, the bench and the front page. */
function requiredPages(): string[] {
  const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
  const packages = readdirSync(join(root, 'packages')).filter((name) =>
    existsSync(join(root, 'packages', name, 'README.md')),
  );
  return [
    'README.md',
    'bench/README.md',
    ...docs.map((name) => `docs/${name}`),
    ...packages.map((name) => `packages/${name}/README.md`),
  ];
}

describe('the documentation site', () => {
  let dist = '';
  let server: Server | undefined;
  let origin = '';
  let browser: Browser | undefined;
  let buildSeconds = 0;

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'plant-store-site-'));
    const started = performance.now();
    try {
      await promisify(execFile)('npm', ['run', 'docs:build', '--', '--outDir', dist], {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`npm run docs:build failed:\n${stdout}\n${stderr}`, { cause: error });
    }
    buildSeconds = (performance.now() - started) / 1000;
    server = serveSite(dist);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    if (dist !== '') await rm(dist, { recursive: true, force: true });
  });

  it('builds', () => {
    // The build fails on a dead link between pages and on a link to a file the repository lacks.
    expect(existsSync(join(dist, 'index.html')), `built in ${buildSeconds.toFixed(1)} s`).toBe(true);
  });

  it('reaches every page from the home page: each loads, holds the fragments links name, edits its file', async () => {
    const { visits, problems } = await crawl(browser!, `${origin}/`);
    expect(problems).toEqual([]);
    const reached = [...visits.keys()].sort();
    const missing = requiredPages().filter((page) => !visits.has(pageUrl(page)));
    expect(missing, `pages no link leads to (reached: ${reached.join(', ')})`).toEqual([]);
    // The edit link names the page's file (a README.md), not the index.md it is served as.
    const editLinks = requiredPages().map((page) => [page, visits.get(pageUrl(page))?.editLink]);
    expect(editLinks).toEqual(requiredPages().map((page) => [page, `${REPOSITORY}/edit/main/${page}`]));
    // The bench's page shows every chart drawn from its results (each loaded, or the crawl said otherwise).
    const charts = readdirSync(join(root, 'bench/charts')).filter((name) => name.endsWith('.svg'));
    expect(charts.length).toBeGreaterThan(3);
    expect(visits.get(pageUrl('bench/README.md'))?.images).toBe(charts.length);
  }, 60_000);

  it('names every page of docs/, every package and the bench in the sidebar', async () => {
    const tab = await browser!.newPage();
    try {
      await tab.goto(`${origin}/`, { waitUntil: 'load' });
      const links = await tab
        .locator('.VPSidebar a[href]')
        .evaluateAll((anchors) => anchors.map((anchor) => new URL((anchor as HTMLAnchorElement).href).pathname));
      const absent = requiredPages().filter((page) => page !== 'README.md' && !links.includes(pageUrl(page)));
      expect(absent, `pages the sidebar leaves out (it links ${links.join(', ')})`).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it(`finds ${SEARCH.page} when searching for ${SEARCH.word}`, async () => {
    const tab = await browser!.newPage();
    try {
      await tab.goto(`${origin}/`, { waitUntil: 'load' });
      await tab.locator('#local-search button').click();
      await tab.locator('#localsearch-input').fill(SEARCH.word);
      const results = tab.locator('.results a.result');
      await results.first().waitFor({ timeout: 10_000 });
      const paths = await results.evaluateAll((anchors) =>
        anchors.map((anchor) => new URL((anchor as HTMLAnchorElement).href).pathname),
      );
      expect(paths, `the results for ${SEARCH.word}`).toContain(pageUrl(SEARCH.page));
    } finally {
      await tab.close();
    }
  });
});
