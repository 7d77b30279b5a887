// What the production build of the React example must do, whichever way its API is mocked: the cases
// run once with @msw/playwright (routes, no worker) and once with the app's own setupWorker.
import { expect, type Page, type TestType } from '@playwright/test';

/** How a spec mocks the API for one page: `open` loads the app mocked, `use` switches a scenario. */
export interface MockedApp {
  /** Loads the app mocked; answers with an id the mock store holds from the start (seeded with makePlants). */
  open(page: Page): Promise<{ takenId: string }>;
  use(page: Page, scenario: 'unauthorized' | 'store unavailable'): Promise<void>;
}

/** Fills in the form and submits it; returns the bodies of the POSTs to /api/plants that left the page. */
async function submit(page: Page, id: string, name: string): Promise<string[]> {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/plants') {
      posts.push(request.postData() ?? '');
    }
  });
  await page.fill('input[name=id]', id);
  await page.fill('input[name=name]', name);
  await page.click('button[type=submit]:not([disabled])');
  return posts;
}

// biome-ignore lint/suspicious/noExplicitAny: any fixtures: the specs extend the base test differently
export function appCases(test: TestType<any, any>, app: MockedApp): void {
  test('a create is shown', async ({ page }) => {
    await app.open(page);
    const posts = await submit(page, '12', 'Fern');
    await expect(page.getByRole('status')).toHaveText('Added Fern with id 12');
    expect(posts).toEqual(['{"id":12,"name":"Fern"}']);
  });

  test('2^53 + 1 is sent exactly', async ({ page }) => {
    await app.open(page);
    const posts = await submit(page, '9007199254740993', 'Big');
    await expect(page.getByRole('status')).toHaveText('Added Big with id 9007199254740993');
    expect(posts).toEqual(['{"id":9007199254740993,"name":"Big"}']);
  });

  test('a seeded id gets the 40003 message beside the id field', async ({ page }) => {
    const { takenId } = await app.open(page);
    await submit(page, takenId, 'Someone else');
    await expect(page.locator('#id-error')).toHaveText('This id is already taken.');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('a 401 shows the sign-in message', async ({ page }) => {
    await app.open(page);
    await app.use(page, 'unauthorized');
    await submit(page, '13', 'Ivy');
    await expect(page.getByRole('alert')).toHaveText('Your sign-in is not valid any more. Please sign in again.');
  });

  test('a 503 is retried by the client, then shown', async ({ page }) => {
    await app.open(page);
    await app.use(page, 'store unavailable');
    const posts = await submit(page, '14', 'Moss');
    await expect(page.getByRole('alert')).toHaveText(
      'The plant store is unavailable right now. Please try again in a moment.',
    );
    expect(posts).toHaveLength(3);
  });
}
