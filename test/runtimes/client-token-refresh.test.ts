// The client's token provider and middleware with the real server, in Node and in Chromium: the built
// plant-store-server CLI with a token file that is rotated by SIGHUP, reached through a small server in
// front that also serves the browser page, stands in for an identity provider's token endpoint, and
// answers 503 on demand (what a gateway in front of a restarting service does). The scenarios
// (client-token-refresh-cases.ts) are the same in both runtimes; MSW's scenario runs in each as well.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setupServer } from 'msw/node';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, chromiumExecutable, launchChromium, mockServiceWorkerScript } from '../contract/browser/chromium.js';
import { type Hooks, type ScenarioName, STEADY_TOKEN, scenarios } from './client-token-refresh-cases.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CLI = here('../../packages/server/dist/cli.js');

const dir = mkdtempSync(join(tmpdir(), 'plant-store-client-refresh-'));
const tokenFile = join(dir, 'tokens.txt');
let generation = 0;
const rotatingToken = () => `rotating-${generation}`;

let cli: ChildProcess | undefined;
let cliOutput = '';
let apiUrl = '';
let front: Server | undefined;
let origin = '';
let failNext = 0;
let browser: Browser | undefined;

/** Writes the token file whole, then renames it into place, as a deploy should (never half a file). */
function writeTokens(): void {
  writeFileSync(`${tokenFile}.new`, `# generation ${generation}\n${STEADY_TOKEN}\n${rotatingToken()}\n`);
  renameSync(`${tokenFile}.new`, tokenFile);
}

/** The status of a create the server refuses whatever the token: 400 for an accepted token, 401 otherwise. */
async function statusFor(token: string): Promise<number> {
  const response = await fetch(`${apiUrl}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await response.arrayBuffer();
  return response.status;
}

/** A new rotating token in the file, SIGHUP, and a wait (at most 10 s) until the old one is refused. */
async function rotate(): Promise<{ refused: string; accepted: string }> {
  const refused = rotatingToken();
  generation++;
  writeTokens();
  cli!.kill('SIGHUP');
  for (let i = 0; i < 200; i++) {
    if ((await statusFor(refused)) === 401 && (await statusFor(rotatingToken())) === 400) {
      return { refused, accepted: rotatingToken() };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server did not take the rotated token file:\n${cliOutput}`);
}

/** Serves the page, the token endpoint, and /api in front of the server (or a 503 while `failNext` lasts). */
async function startFront(files: Record<string, { type: string; body: string }>): Promise<void> {
  front = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/token' && request.method === 'POST') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end(rotatingToken());
      return;
    }
    if (path.startsWith('/api/')) {
      if (failNext > 0 && request.method === 'POST') {
        failNext--;
        request.resume();
        response
          .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
          .end(JSON.stringify({ error: 50301, message: 'The store is unavailable' }));
        return;
      }
      const upstream = forward(`${apiUrl}${path.slice('/api'.length)}`, {
        method: request.method,
        headers: request.headers,
      });
      upstream.on('response', (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.on('error', (error) => response.destroy(error));
      request.pipe(upstream);
      return;
    }
    const file = files[path];
    if (file === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => front!.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  // First, so a missing browser or build fails in seconds.
  await chromiumExecutable();
  for (const name of ['client', 'msw', 'server']) {
    if (!existsSync(here(`../../packages/${name}/dist/index.js`))) {
      throw new Error(`@plant-store/${name} is not built: run \`npm run build\` first`);
    }
  }
  writeTokens();
  cli = spawn(process.execPath, [CLI, '--port', '0', '--token-file', tokenFile], { stdio: 'pipe' });
  cli.stdout!.on('data', (chunk: Buffer) => (cliOutput += chunk));
  cli.stderr!.on('data', (chunk: Buffer) => (cliOutput += chunk));
  for (let i = 0; i < 200 && !apiUrl; i++) {
    apiUrl = /listening on (\S+)/.exec(cliOutput)?.[1] ?? '';
    if (!apiUrl) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!apiUrl) throw new Error(`the server did not start:\n${cliOutput}`);

  await startFront({
    '/': {
      type: 'text/html',
      body: '<!doctype html><meta charset="utf-8"><title>client</title><script type="module" src="/page.js"></script>',
    },
    '/page.js': { type: 'text/javascript', body: await bundle(here('./client-token-refresh-page.ts')) },
    '/mockServiceWorker.js': { type: 'text/javascript', body: await mockServiceWorkerScript() },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (front ? front.close(resolve) : resolve(undefined)));
  front?.closeAllConnections();
  cli?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh page of the site in a context of its own (the MSW worker registered in one stays there). */
async function openPage(): Promise<Page> {
  const context: BrowserContext = await browser!.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.exposeFunction('rotateTokens', rotate);
  await page.exposeFunction('failNextCreates', (count: number) => {
    failNext = count;
  });
  await page.goto(`${origin}/`);
  await page
    .waitForFunction(() => typeof window.runScenario === 'function')
    .catch((error: Error) => {
      throw new Error([error.message, ...errors].join('\n'));
    });
  return page;
}

/** Node's hooks: the same server, the same front, MSW's setupServer. */
const nodeHooks = (firstId: number): Hooks => ({
  baseUrl: `${origin}/api`,
  tokenUrl: `${origin}/token`,
  firstId,
  rotate,
  failNext: async (count) => {
    failNext = count;
  },
  async mock(handlers) {
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: 'bypass' });
    return () => server.close();
  },
});

const runtimes = {
  node: (name: ScenarioName) => scenarios[name](nodeHooks(1_000_000)),
  chromium: async (name: ScenarioName) => {
    const page = await openPage();
    try {
      return await page.evaluate(([scenario, firstId]) => window.runScenario(scenario, firstId), [
        name,
        2_000_000,
      ] as const);
    } finally {
      await page.context().close();
    }
  },
};

describe.each(Object.keys(runtimes) as (keyof typeof runtimes)[])('in %s', (runtime) => {
  const run = <N extends ScenarioName>(name: N) =>
    runtimes[runtime](name) as Promise<Awaited<ReturnType<(typeof scenarios)[N]>>>;

  it('refreshes a token the server stopped accepting (token file rotated by SIGHUP), and the create lands once', async () => {
    const { plant, asked, log, again } = await run('rotated');

    expect(plant).toEqual({ name: 'Rotated fern' });
    expect(asked).toEqual([false, true]);
    expect(log).toEqual(['sent', 401, 'sent', 200]);
    expect(again).toMatchObject({ name: 'PlantStoreApiError', status: 400, code: 40003 });
  });

  it('refreshes once for 20 concurrent creates refused with the same token, and every create lands', async () => {
    const outcome = await run('singleFlight');

    expect(outcome).toEqual({ created: 20, refreshes: 1, firstTokens: 20, statuses: { 401: 20, 200: 20 } });
  });

  it('rejects with the second 40102, after asking the provider twice', async () => {
    const { error, asked, log } = await run('secondRefusal');

    expect(error).toMatchObject({ name: 'PlantStoreApiError', status: 401, code: 40102 });
    expect(asked).toEqual([false, true]);
    expect(log).toEqual(['sent', 401, 'sent', 401]);
  });

  it("rejects with a provider's error, or a TypeError for an empty token, sending nothing it could not", async () => {
    const { throwsFirst, throwsOnRefresh, empty } = await run('unusableProvider');

    expect(throwsFirst).toEqual({ error: expect.objectContaining({ message: 'signed out' }), log: [] });
    expect(throwsOnRefresh).toEqual({ error: expect.objectContaining({ message: 'signed out' }), log: ['sent', 401] });
    expect(empty).toEqual({
      error: expect.objectContaining({ name: 'TypeError', message: 'the token provider gave no token68 string' }),
      log: [],
    });
  });

  it('rejects with the abort reason when aborted while waiting on a refresh', async () => {
    const { error, log } = await run('abortWhileRefreshing');

    expect(error).toMatchObject({ message: 'the person left the page' });
    expect(log).toEqual(['sent', 401]);
  });

  it('runs the client middleware then the call middleware on a 503 and on its retry, whose header reaches the server', async () => {
    const { plant, log } = await run('middleware');

    expect(plant).toEqual({ name: 'Twice' });
    expect(log).toEqual([
      'client onRequest 1',
      'call onRequest attempt-1',
      'call onResponse 503',
      'client onResponse 503 null',
      'client onRequest 2',
      'call onRequest attempt-2',
      'call onResponse 200',
      'client onResponse 200 attempt-2',
    ]);
  });

  it("refreshes on @plant-store/msw's unauthorized scenario (once), then lands in the mock store", async () => {
    const { plant, asked, log, stored } = await run('msw');

    expect(plant).toEqual({ name: 'Mocked' });
    expect(asked).toEqual([false, true]);
    expect(log).toEqual(['Bearer mock-cached', '401', 'Bearer mock-renewed', '200']);
    expect(stored).toBe(1);
  });
});
