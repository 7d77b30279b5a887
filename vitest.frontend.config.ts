import { defineConfig } from 'vitest/config';
import { RUN_SETUPS, sharedTestSettings } from './vitest.config.js';

// The frontend setups on the majors that need a newer Node (test/packaging/frontend-*.test.ts with
// PLANT_STORE_FRONTEND_MAJORS=next): msw 3, Vitest 5 and jsdom 31 under Node 22 (frontend-vitest), the
// app's worker and Storybook on msw 3 under Node 22 (frontend-playwright), Jest on msw 3 under Node 24,
// the first Node where Jest loads an ES-module-only msw (frontend-jest).
// scripts/node-matrix.sh runs them; `npm test` runs the same files on msw 2 and Vitest 4.
export default defineConfig({
  test: {
    ...sharedTestSettings,
    globalSetup: [...RUN_SETUPS],
    pool: 'forks',
    include: [
      'test/packaging/frontend-jest.test.ts',
      'test/packaging/frontend-vitest.test.ts',
      'test/packaging/frontend-playwright.test.ts',
    ],
    exclude: ['**/node_modules/**'],
    env: { PLANT_STORE_FRONTEND_MAJORS: 'next' },
    typecheck: { enabled: false },
  },
});
