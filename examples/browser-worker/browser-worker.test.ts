// Loads the browser example in Chromium: the page starts MSW's worker with the Plant Store handlers,
// and a user fills in the form.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  bundle,
  chromiumExecutable,
  mockServiceWorkerScript,
  serveStatic,
  withChromium,
  type StaticServer,
} from '../../test/contract/browser/chromium.js';

let site: StaticServer | undefined;

beforeAll(async () => {
  // First, so a missing browser fails in seconds rather than after the bundle.
  await chromiumExecutable();
  const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
  site = await serveStatic({
    '/': { type: 'text/html', body: await readFile(here('./index.html'), 'utf8') },
    '/main.js': { type: 'text/javascript', body: await bundle(here('./main.ts')) },
    '/mockServiceWorker.js': { type: 'text/javascript', body: await mockServiceWorkerScript() },
  });
}, 60_000);

afterAll(async () => {
  await site?.close();
});

it('adds a plant through the mocked API and refuses another plant under the same id', async () => {
  const shown = await withChromium(`${site!.origin}/`, async (page) => {
    const results: string[] = [];
    const submit = async (id: string, name: string) => {
      await page.fill('input[name=id]', id);
      await page.fill('input[name=name]', name);
      await page.evaluate(() => ((document.querySelector('#result') as HTMLOutputElement).value = ''));
      // Enabled once the worker has started: a submit before that would reach no mock.
      await page.click('button[type=submit]:not([disabled])');
      await page.waitForFunction(() => (document.querySelector('#result') as HTMLOutputElement).value !== '');
      results.push(await page.evaluate(() => (document.querySelector('#result') as HTMLOutputElement).value));
    };
    await submit('9007199254740993', 'Fern');
    await submit('9007199254740993', 'Ivy');
    return results;
  });
  expect(shown).toEqual(['Added Fern', 'Refused (40003): id is stored already with a different name or tag']);
});
