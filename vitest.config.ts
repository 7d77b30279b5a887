import { defineConfig } from 'vitest/config';

// One run covers every package, the contract suite and the examples. Tests that start servers,
// browsers or child processes get room to do it; speed is never asserted here (see `npm run bench`).
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Runs that need Node 22 or newer are scripts/node-matrix.sh's (`npm run test:matrix`).
    exclude: ['**/node_modules/**', '**/dist/**', 'test/packaging/consumer-majors.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // The run's PostgreSQL servers live in one directory, removed at the end (test/support/postgres.ts).
    globalSetup: ['test/support/postgres-setup.ts'],
    pool: 'forks',
    typecheck: {
      enabled: true,
      include: ['packages/*/test/**/*.test-d.ts'],
      tsconfig: './tsconfig.typecheck.json',
    },
  },
});
