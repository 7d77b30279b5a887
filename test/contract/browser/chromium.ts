// Node-side harness for the browser runs: bundle a page with esbuild, serve it with the MSW service
// worker from a tiny node:http server on 127.0.0.1, and drive Chromium (found or fetched by
// ./executable.ts) with playwright-core. Every step is bounded in time and Chromium is always closed,
// pass or fail.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumExecutable } from './executable.js';

export { chromiumExecutable } from './executable.js';

// --no-sandbox: Chromium's sandbox refuses to start as root (containers, CI).
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Starts a headless Chromium for a test; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS, timeout: 30_000 });
}

/** Bundles a browser entry (TypeScript) into one ES module, resolving packages for the browser. */
export async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (output === undefined) throw new Error(`esbuild produced nothing for ${entry}`);
  return output.text;
}

/** The service worker script, exactly what `npx msw init <dir>` copies for the installed msw. */
export async function mockServiceWorkerScript(): Promise<string> {
  const require = createRequire(import.meta.url);
  return readFile(require.resolve('msw/mockServiceWorker.js'), 'utf8');
}

/** A file the static server answers with. */
export interface StaticFile {
  readonly type: string;
  readonly body: string;
}

/** A running static server. */
export interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `files` by path on 127.0.0.1 with a free port; anything else is a 404. */
export async function serveStatic(files: Readonly<Record<string, StaticFile>>): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://x').pathname];
    if (file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    // The page may be served under a scope the worker controls; no caching keeps reruns honest.
    response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Rejects after `ms` with a message naming what took too long. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Opens `url` in a fresh headless Chromium, runs `drive` on the page and closes the browser whatever
 * happens. Console errors and page errors are collected into the failure message, so a broken
 * bundle says why. The whole run is bounded by `timeoutMs`.
 */
export async function withChromium<T>(url: string, drive: (page: Page) => Promise<T>, timeoutMs = 90_000): Promise<T> {
  const browser = await launchChromium();
  const logs: string[] = [];
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') logs.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => logs.push(`page error: ${error.message}`));
    return await within(
      timeoutMs,
      'the browser run',
      (async () => {
        await page.goto(url, { waitUntil: 'load' });
        return drive(page);
      })(),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(logs.length > 0 ? `${message}\n${logs.join('\n')}` : message, { cause: error });
  } finally {
    await browser.close();
  }
}
