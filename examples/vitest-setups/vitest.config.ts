// One Vitest install, one project per setup: the React form in jsdom, in happy-dom and in Chromium
// (Browser Mode, Playwright provider), the form libraries, and TanStack Query in Vue, Solid and Svelte.
// `vitest run --project jsdom` runs one of them. `globals: true` everywhere: the testing libraries then
// unmount after each test by themselves, and the React form's test is the Jest example's, unchanged.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import react from '@vitejs/plugin-react';
import { playwright } from '@vitest/browser-playwright';
import solid from 'vite-plugin-solid';
import { defineConfig } from 'vitest/config';

// The Chromium to drive: any Chrome or Chromium binary (Playwright's own download works too, with this unset).
const executablePath = process.env.PLANT_STORE_CHROMIUM || undefined;
// Room for a loaded CI machine; no test asserts a time.
const common = { globals: true, testTimeout: 30_000 };

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [react()],
        test: { name: 'jsdom', environment: 'jsdom', ...common, include: ['src/add-plant-form.spec.tsx'] },
      },
      {
        plugins: [react()],
        test: { name: 'happy-dom', environment: 'happy-dom', ...common, include: ['src/add-plant-form.spec.tsx'] },
      },
      {
        plugins: [react()],
        // In the page, msw's service worker answers: the same test, the browser's mocks module.
        resolve: { alias: { './mocks': '/src/mocks.browser.ts' } },
        test: {
          name: 'browser',
          ...common,
          include: ['src/add-plant-form.spec.tsx'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: {
                executablePath,
                // --no-sandbox: Chromium refuses its sandbox as root (containers, CI).
                args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
              },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        plugins: [react()],
        test: { name: 'forms', ...common, environment: 'jsdom', include: ['src/forms/*.spec.tsx'] },
      },
      { test: { name: 'vue', ...common, environment: 'jsdom', include: ['src/vue/*.spec.ts'] } },
      {
        plugins: [solid()],
        test: { name: 'solid', ...common, environment: 'jsdom', include: ['src/solid/*.spec.tsx'] },
      },
      {
        plugins: [svelte(), svelteTesting()],
        test: { name: 'svelte', ...common, environment: 'jsdom', include: ['src/svelte/*.spec.ts'] },
      },
    ],
  },
});
