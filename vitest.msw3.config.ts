import { defineConfig } from 'vitest/config';
import { RUN_SETUPS, sharedTestSettings } from './vitest.config.js';

// The MSW suites on msw 3, which needs Node 22.12 or newer: scripts/node-matrix.sh runs this config
// under Node 22 and 24. `msw3` is a devDependency alias of msw@3; every import of `msw` or `msw/...`
// (in the tests and in @plant-store/msw's built files, which vitest transforms as workspace sources)
// resolves to it. test/packaging/msw-major.test.ts fails if the handlers were built on another copy.
export default defineConfig({
  resolve: {
    alias: [{ find: /^msw(\/.*)?$/, replacement: 'msw3$1' }],
  },
  test: {
    ...sharedTestSettings,
    globalSetup: [...RUN_SETUPS],
    include: ['packages/msw/test/**/*.test.ts', 'test/contract/msw-node.test.ts', 'test/packaging/msw-major.test.ts'],
    env: { PLANT_STORE_MSW_MAJOR: '3' },
    // Type tests depend on msw's types, not the runtime: they run once, in `npm test` on msw 2.
    typecheck: { enabled: false },
  },
});
