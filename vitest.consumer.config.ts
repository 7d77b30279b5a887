import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// A consumer's project on msw 3, vitest 5 and TypeScript 7 (test/packaging/consumer-majors.test.ts):
// it installs from the npm registry and needs Node 22.12 or newer, so scripts/node-matrix.sh runs it
// under Node 22 and `npm test` leaves it out.
export default defineConfig({
  ...base,
  test: {
    // base.test brings the run's global setups, test/packaging/tarballs-setup.ts among them: listed here
    // again, it would pack twice (vitest runs every entry of globalSetup).
    ...base.test,
    include: ['test/packaging/consumer-majors.test.ts'],
    exclude: ['**/node_modules/**'],
    typecheck: { enabled: false },
  },
});
