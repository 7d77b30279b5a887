import { defineConfig } from 'vitest/config';
import { RUN_SETUPS, sharedTestSettings } from './vitest.config.js';

// A consumer's project on msw 3, vitest 5 and TypeScript 7 (test/packaging/consumer-majors.test.ts):
// it installs from the npm registry and needs Node 22.12 or newer, so scripts/node-matrix.sh runs it
// under Node 22 and `npm test` leaves it out.
export default defineConfig({
  test: {
    ...sharedTestSettings,
    globalSetup: [...RUN_SETUPS],
    pool: 'forks',
    include: ['test/packaging/consumer-majors.test.ts'],
    exclude: ['**/node_modules/**'],
    typecheck: { enabled: false },
  },
});
