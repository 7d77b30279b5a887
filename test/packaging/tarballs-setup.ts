// vitest's global setup for the packaging tests: a directory for the run's tarballs, in which the first
// test file that asks (`packedTarballs()` in helpers.ts) runs `npm pack` of every published package once,
// for every file of the run; and the one npm cache every npm call of the run uses (`npmEnv`). A run with no
// packaging test packs nothing. The directory is removed at the end; in watch mode each rerun gets a new
// one, so a rebuilt package is what the rerun tests.
import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { npmEnv, scratchDirectory } from './helpers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's tarballs are packed, once, by the first file that asks. */
    plantStoreTarballDir: string;
    /** The npm cache of the run: the directory npm's configuration names (`resolveNpmCache()`). */
    plantStoreNpmCache: string;
  }
}

export default function setup(project: TestProject): () => void {
  project.provide('plantStoreNpmCache', npmEnv.npm_config_cache!);
  let dir: string | undefined;
  const fresh = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = scratchDirectory('plant-store-tarballs-');
    project.provide('plantStoreTarballDir', dir);
  };
  fresh();
  project.onTestsRerun(fresh);
  return () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
