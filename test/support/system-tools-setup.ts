// vitest's global setup for suites that need a program from the machine (system-tools.ts): a directory
// in which each suite skipped for an absent tool leaves a line, printed at the end of the run (one line
// a suite, naming the tool and the command that gets it), then removed.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where a suite skipped for an absent system tool says so. */
    plantStoreSkippedSuites: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-skipped-'));
  project.provide('plantStoreSkippedSuites', dir);
  return () => {
    const lines = readdirSync(dir)
      .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n'))
      .filter(Boolean)
      .sort();
    rmSync(dir, { recursive: true, force: true });
    if (lines.length === 0) return;
    console.log(`\n${lines.length} suite${lines.length === 1 ? '' : 's'} skipped for a program this machine lacks:`);
    for (const line of lines) console.log(`  ${line}`);
    console.log('With CI=true these suites fail instead; .ci/run installs every program.\n');
  };
}
