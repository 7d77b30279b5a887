// vitest's global setup for the packaging tests: `npm pack` of every published package once for the run,
// into one temporary directory, handed to every test file (`packedTarballs()` in helpers.ts reads it), so
// the suites that install, lint or unpack the tarballs share them instead of packing on their own; and the
// one npm cache every npm call of the run uses (`npmEnv`). The directory is removed at the end; in watch
// mode, each rerun packs again, so a rebuilt package is what the rerun tests.
// Packing takes a few seconds, the same for a run that needs no tarball. A package that is not built does
// not stop the run: the files that ask for tarballs fail with the reason, the others run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { npmEnv, type PackResult, packAll } from './helpers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every published package packed by `npm pack`, in `publishedPackages` order, or why they could not be. */
    plantStoreTarballs: PackResult[] | { error: string };
    /** The npm cache of the run: the directory npm's configuration names (`resolveNpmCache()`). */
    plantStoreNpmCache: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  project.provide('plantStoreNpmCache', npmEnv.npm_config_cache!);
  let dir: string | undefined;
  const packEverything = async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'plant-store-tarballs-'));
    try {
      project.provide('plantStoreTarballs', await packAll(dir));
    } catch (error) {
      project.provide('plantStoreTarballs', { error: (error as Error).message });
    }
  };
  await packEverything();
  project.onTestsRerun(packEverything);
  return () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
