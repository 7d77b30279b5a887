// A vitest reporter that ends the run with its ten slowest test files, each with its own time: the import
// (a top-level install or server start counts here) plus its tests and hooks. With files running side by
// side these add up to more than the run's wall time; they say where a faster run must start.
// PLANT_STORE_SLOWEST_FILES=<path> also writes every file's figures there as JSON.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** How many files the run's end lists. */
const LISTED = 10;

export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => {
        const d = module.diagnostic();
        const importMs = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration;
        return {
          file: relative(process.cwd(), module.moduleId),
          project: module.project.name,
          seconds: (importMs + d.duration) / 1000,
          importSeconds: importMs / 1000,
          tests: [...module.children.allTests()].length,
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    if (process.env.PLANT_STORE_SLOWEST_FILES) {
      writeFileSync(process.env.PLANT_STORE_SLOWEST_FILES, `${JSON.stringify(rows, null, 2)}\n`);
    }
    if (rows.length < 2) return;
    console.log(`\nThe ${Math.min(LISTED, rows.length)} slowest test files (import + tests, seconds):`);
    for (const row of rows.slice(0, LISTED)) {
      const project = row.project ? ` [${row.project}]` : '';
      console.log(
        `  ${row.seconds.toFixed(1).padStart(6)}  ${row.file}${project} (import ${row.importSeconds.toFixed(1)})`,
      );
    }
  }
}
