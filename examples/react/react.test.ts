// The React example as a developer runs it (`npx vite examples/react`: Vite's dev server, the Plant Store mocked in
// the browser by @plant-store/msw), driven in Chromium: what a person types, what the page shows, and the
// requests that leave the page.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumExecutable, launchChromium } from '../../test/contract/browser/chromium.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

let vite: ViteDevServer | undefined;
let browser: Browser | undefined;
let url = '';

beforeAll(async () => {
  // First, so a missing browser fails in seconds rather than after the dev server starts.
  await chromiumExecutable();
  for (const name of ['client', 'msw', 'query']) {
    if (!existsSync(here(`../../packages/${name}/dist/index.js`))) {
      throw new Error(`@plant-store/${name} is not built: run \`npm run build\` first`);
    }
  }
  // The mocks, not a real server: a developer's own setting must not point the test elsewhere.
  delete process.env.VITE_PLANT_STORE_URL;
  vite = await createServer({
    configFile: here('./vite.config.ts'),
    server: { host: '127.0.0.1', port: 0 },
    logLevel: 'error',
  });
  await vite.listen();
  url = vite.resolvedUrls!.local[0]!;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await vite?.close();
});

interface Session {
  readonly page: Page;
  /** The bodies of the POSTs to /api/plants that left the page, in order. */
  readonly posts: string[];
  /** Fills in the form and submits it. */
  submit(id: string, name: string, tag?: string): Promise<void>;
  text(selector: string): Promise<string>;
  close(): Promise<void>;
}

/** A fresh page of the app (and so a fresh mock store), once the mocks have started. */
async function open(): Promise<Session> {
  const page = await browser!.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/plants') {
      posts.push(request.postData() ?? '');
    }
  });
  await page.goto(url);
  await page.waitForSelector('#taken-ids').catch((error: Error) => {
    throw new Error(`the app did not start: ${[error.message, ...errors].join('\n')}`);
  });
  return {
    page,
    posts,
    async submit(id, name, tag = '') {
      await page.fill('input[name=id]', id);
      await page.fill('input[name=name]', name);
      await page.fill('input[name=tag]', tag);
      await page.click('button[type=submit]:not([disabled])');
    },
    text: async (selector) => (await page.textContent(selector)) ?? '',
    close: () => page.close(),
  };
}

/** Runs `drive` on a fresh page of the app, closed afterwards whatever happens. */
async function inPage(drive: (session: Session) => Promise<void>): Promise<void> {
  const session = await open();
  try {
    await drive(session);
  } finally {
    await session.close();
  }
}

/** Waits until `selector` holds text (a status, an alert, a field's message), and returns it. */
async function shown(session: Session, selector: string): Promise<string> {
  await session.page.waitForFunction((s) => (document.querySelector(s)?.textContent ?? '') !== '', selector);
  return session.text(selector);
}

it('creates a plant and shows it', () =>
  inPage(async (session) => {
    await session.submit('12', 'Fern', 'shade');
    expect(await shown(session, '[role=status]')).toBe('Added Fern with id 12');
    expect(session.posts).toEqual(['{"id":12,"name":"Fern","tag":"shade"}']);
  }));

it('sends a 2^53 + 1 id exactly and the store keeps it apart from 2^53', () =>
  inPage(async (session) => {
    await session.submit('9007199254740993', 'Big');
    expect(await shown(session, '[role=status]')).toBe('Added Big with id 9007199254740993');
    // A rounded id would be 2^53, and this create would then be refused as taken.
    await session.submit('9007199254740992', 'Other');
    await session.page.waitForSelector('[role=status]:has-text("Other")');
    await session.submit('9007199254740993', 'Other');
    expect(await shown(session, '#id-error')).toBe('This id is already taken.');
    expect(session.posts).toEqual([
      '{"id":9007199254740993,"name":"Big"}',
      '{"id":9007199254740992,"name":"Other"}',
      '{"id":9007199254740993,"name":"Other"}',
    ]);
  }));

it('shows the 40003 sentence beside the id for an id the store holds with another plant', () =>
  inPage(async (session) => {
    const [taken] = (await session.text('#taken-ids')).split(', ');
    await session.submit(taken!, 'Someone else');
    expect(await shown(session, '#id-error')).toBe('This id is already taken.');
    expect(await session.page.getAttribute('input[name=id]', 'aria-invalid')).toBe('true');
    expect(await session.page.locator('[role=alert]').count()).toBe(0);
  }));

it('refuses an invalid form with the service messages beside the fields, before any request', () =>
  inPage(async (session) => {
    await session.submit('1.5', 'Fern');
    expect(await shown(session, '#id-error')).toBe(
      'id must be an integer between -9223372036854775808 and 9223372036854775807',
    );
    await session.submit('', 'Fern');
    await session.page.waitForSelector('#id-error:has-text("id is required")');
    await session.submit('9223372036854775808', 'Fern');
    await session.page.waitForSelector('#id-error:has-text("id must be an integer")');
    expect(session.posts).toEqual([]);
  }));

it('shows the sign-in sentence for the 401 scenario, after the token provider refreshed once', () =>
  inPage(async (session) => {
    await session.page.selectOption('select[name=scenario]', 'unauthorized');
    await session.submit('3', 'Moss');
    expect(await shown(session, '[role=alert]')).toBe('Your sign-in is not valid any more. Please sign in again.');
    // The refused token (40102) is asked anew of the provider and the create sent once more; the
    // second 40102 ends the call. No other 4xx is sent again.
    expect(session.posts).toEqual(Array(2).fill('{"id":3,"name":"Moss"}'));
  }));

it('retries the 503 scenario in the client, then shows the store-unavailable sentence', () =>
  inPage(async (session) => {
    await session.page.selectOption('select[name=scenario]', 'store unavailable');
    await session.submit('4', 'Ivy');
    await session.page.waitForSelector('button:has-text("Adding…")');
    expect(await shown(session, '[role=alert]')).toBe(
      'The plant store is unavailable right now. Please try again in a moment.',
    );
    // The first attempt and the client's two retries after Retry-After; the mutation adds none.
    expect(session.posts).toHaveLength(3);
  }));

it('shows the no-connection sentence when the network fails', () =>
  inPage(async (session) => {
    await session.page.selectOption('select[name=scenario]', 'network error');
    await session.submit('5', 'Sage');
    expect(await shown(session, '[role=alert]')).toBe(
      'The plant store could not be reached. Check your connection and try again.',
    );
    expect(session.posts).toHaveLength(3);
  }));
