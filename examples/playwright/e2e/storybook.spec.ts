// The Storybook build (`storybook build`), each story of the form opened in Chromium and used as a
// person would: msw-storybook-addon's worker answers with @plant-store/msw per story.
import { expect, type Page, test } from '@playwright/test';
import { plants } from '../stories/mocks';

async function story(page: Page, id: string): Promise<string[]> {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/plants') {
      posts.push(request.postData() ?? '');
    }
  });
  await page.goto(`/iframe.html?id=addplantform--${id}&viewMode=story`);
  await page.locator('input[name=id]').waitFor({ timeout: 15_000 });
  return posts;
}

async function submit(page: Page, id: string, name: string): Promise<void> {
  await page.fill('input[name=id]', id);
  await page.fill('input[name=name]', name);
  await page.click('button[type=submit]:not([disabled])');
}

test('Default: a create is shown', async ({ page }) => {
  const posts = await story(page, 'default');
  await submit(page, '31', 'Fern');
  await expect(page.getByRole('status')).toHaveText('Added Fern with id 31');
  expect(posts).toEqual(['{"id":31,"name":"Fern"}']);
});

test('Default: a seeded id gets the 40003 message beside the id field', async ({ page }) => {
  await story(page, 'default');
  await submit(page, String(plants[0]!.id), 'Someone else');
  await expect(page.locator('#id-error')).toHaveText('This id is already taken.');
});

test('Unauthorized: the sign-in message', async ({ page }) => {
  await story(page, 'unauthorized');
  await submit(page, '32', 'Ivy');
  await expect(page.getByRole('alert')).toHaveText('Your sign-in is not valid any more. Please sign in again.');
});

test('StoreUnavailable: retried by the client, then shown', async ({ page }) => {
  const posts = await story(page, 'store-unavailable');
  await submit(page, '33', 'Moss');
  await expect(page.getByRole('alert')).toHaveText(
    'The plant store is unavailable right now. Please try again in a moment.',
  );
  expect(posts).toHaveLength(3);
});
