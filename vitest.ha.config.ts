import { defineConfig } from 'vitest/config';
import { RUN_SETUPS, sharedTestSettings } from './vitest.config.js';

// The high-availability suites (test/ha): minutes of failovers on programs of the machine (Patroni, etcd,
// HAProxy), which `npm test` leaves out. `npm run test:ha` runs them on the built packages and builds
// nothing itself: run `npm run build` first (.ci/run runs it after `npm test`, which builds). One file at
// a time in one process: each file runs its own cluster, and its failovers are timed. The run's directory
// for those clusters comes from test/ha/ha-setup.ts, which kills and removes whatever is left there.
export default defineConfig({
  test: {
    ...sharedTestSettings,
    globalSetup: [...RUN_SETUPS, 'test/ha/ha-setup.ts'],
    include: ['test/ha/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
