// vitest's global setup for the PostgreSQL tests: one directory for the run, handed to every test file
// (`inject('plantStorePostgresDir')`), in which test/support/postgres.ts starts the one PostgreSQL server
// the run's files share (the first file that asks for a database starts it) and the servers of files that
// need one of their own. At the end, every server still running in it is stopped and the directory is
// removed, so a test process that died before closing its servers leaves nothing behind.
import type { TestProject } from 'vitest/node';
import { removeServers, serverDirectory } from './embedded-postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory for PostgreSQL servers; undefined when the tests use PLANT_STORE_TEST_DATABASE_URL. */
    plantStorePostgresDir: string | undefined;
  }
}

export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  if (process.env.PLANT_STORE_TEST_DATABASE_URL) {
    project.provide('plantStorePostgresDir', undefined);
    return undefined;
  }
  const dir = serverDirectory();
  project.provide('plantStorePostgresDir', dir);
  return () => removeServers(dir);
}
