// Playwright Test against the React example built for production (`vite build`, served by `vite preview`)
// and against the Storybook build (`storybook build`, served the same way). Chromium is whatever
// PLANT_STORE_CHROMIUM names (a test tool's own browser download is not needed); unset, Playwright's own.
import { defineConfig } from '@playwright/test';

const APP_PORT = Number(process.env.APP_PORT ?? 4173);
const STORYBOOK_PORT = Number(process.env.STORYBOOK_PORT ?? 6006);
const executablePath = process.env.PLANT_STORE_CHROMIUM || undefined;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    browserName: 'chromium',
    headless: true,
    // --no-sandbox: Chromium refuses its sandbox as root (containers, CI).
    launchOptions: { executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] },
  },
  projects: [
    { name: 'app', testMatch: /app-.*\.spec\.ts/, use: { baseURL: `http://127.0.0.1:${APP_PORT}` } },
    { name: 'storybook', testMatch: /storybook\.spec\.ts/, use: { baseURL: `http://127.0.0.1:${STORYBOOK_PORT}` } },
  ],
  webServer: [
    {
      command: `npx vite preview --host 127.0.0.1 --port ${APP_PORT} --strictPort`,
      url: `http://127.0.0.1:${APP_PORT}/`,
      timeout: 60_000,
    },
    {
      // A mode of its own: Vite (8.4 and newer) refuses a second `vite preview` of the same root, config
      // and mode while the first runs, and the app's preview above is one.
      command: `npx vite preview --outDir storybook-static --mode storybook --host 127.0.0.1 --port ${STORYBOOK_PORT} --strictPort`,
      url: `http://127.0.0.1:${STORYBOOK_PORT}/iframe.html`,
      timeout: 60_000,
    },
  ],
});
