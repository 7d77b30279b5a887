// vitest's global setup for the high-availability suites (vitest.ha.config.ts): one directory for the run,
// handed to every test file (`inject('plantStoreHaDir')`), in which test/support/ha-cluster.ts starts its
// clusters. At the end whatever still runs there is killed and the directory removed (sweep.mjs), so a
// cluster whose test process died before closing it, and whose watchdog did not sweep it, is gone too;
// if the run itself is ended (a Ctrl-C ends it without its teardown), a watchdog of its own does that.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { sweepHaDirectory } from './sweep.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's directory for high-availability clusters. */
    plantStoreHaDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-ha-'));
  // As root, the `postgres` user must reach the directories below this one.
  chmodSync(dir, 0o755);
  project.provide('plantStoreHaDir', dir);
  const sweeper = fileURLToPath(new URL('./sweep.mjs', import.meta.url));
  spawn(process.execPath, [sweeper, String(process.pid), dir], { detached: true, stdio: 'ignore' }).unref();
  return () => sweepHaDirectory(dir);
}
