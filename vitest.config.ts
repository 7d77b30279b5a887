import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// One run covers every package, the contract suite and the examples, in five projects, each with the pool
// and parallelism that suits it on a 2-core machine (`vitest run --project <name>` runs one):
// - unit: in memory, no child process or socket of a server's own; threads, every core;
// - integration: servers on 127.0.0.1, the CLI as a child process, the docs' snippets;
// - postgres: real PostgreSQL servers (one shared by the run, some of a file's own), PgBouncer;
// - runtimes: Bun, Deno, workerd and Chromium;
// - packaging: `npm pack` tarballs installed in fresh projects, mostly waiting on npm and the disk.
// Every project shares one pool of workers, more than the cores since much of the run is spent waiting
// on children, sockets and npm: the longest files start first and the unit files, quick and all CPU,
// fill the cores while npm installs wait (`npm run test:unit` runs them alone, in seconds). Speed is
// never asserted here (see `npm run bench`).

/** What every project shares: room for servers, browsers and child processes to start. */
export const sharedTestSettings = {
  testTimeout: 30_000,
  hookTimeout: 180_000,
} as const;

/**
 * What a run sets up once, whichever files it holds: the directory of its PostgreSQL servers and
 * PgBouncers, the notes of suites skipped for an absent program, the directory of its tarballs.
 */
export const RUN_SETUPS = [
  'test/support/postgres-setup.ts',
  'test/support/system-tools-setup.ts',
  'test/packaging/tarballs-setup.ts',
] as const;

/** The files of each project, by glob. A test file belongs to exactly one. */
const FILES = {
  unit: [
    'packages/core/test/**/*.test.ts',
    'packages/client/test/**/*.test.ts',
    'packages/query/test/**/*.test.ts',
    'packages/msw/test/**/*.test.ts',
    'packages/store-file/test/**/*.test.ts',
    'packages/server/test/flag-reference.test.ts',
    'test/contract/core.test.ts',
    'test/contract/msw-node.test.ts',
    'test/spec/**/*.test.ts',
    'test/hardening/core-properties.test.ts',
    'test/hardening/escaping.test.ts',
    'examples/custom-store/**/*.test.ts',
    'examples/frontend-vitest/**/*.test.ts',
  ],
  postgres: [
    'packages/store-postgres/test/**/*.test.ts',
    'packages/server/test/cli-postgres*.test.ts',
    'test/postgres/**/*.test.ts',
    'test/contract/postgres.test.ts',
    'test/support/embedded-postgres.test.ts',
  ],
  runtimes: [
    'test/runtimes/**/*.test.ts',
    'test/contract/msw-browser.test.ts',
    'test/contract/browser/**/*.test.ts',
    'test/site/**/*.test.ts',
    'examples/react/**/*.test.ts',
    'examples/browser-worker/**/*.test.ts',
  ],
  packaging: ['test/packaging/**/*.test.ts', 'examples/frameworks/**/*.test.ts'],
  integration: ['packages/server/test/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
} as const;

type ProjectName = keyof typeof FILES;

/**
 * What no project runs: dependencies, builds, the runs that need Node 22 or newer (scripts/node-matrix.sh),
 * and the high-availability suites, minutes of failovers that `npm run test:ha` runs (vitest.ha.config.ts).
 */
const EXCLUDED = ['**/node_modules/**', '**/dist/**', 'test/packaging/consumer-majors.test.ts', 'test/ha/**'];

/** A project's files: its globs, less those an earlier project in FILES claimed (integration takes the rest). */
function files(name: ProjectName): { include: string[]; exclude: string[] } {
  const names = Object.keys(FILES) as ProjectName[];
  const claimed = names.slice(0, names.indexOf(name)).flatMap((other) => FILES[other]);
  return { include: [...FILES[name]], exclude: [...EXCLUDED, ...claimed] };
}

/** Workers of every project, all in one pool: children, sockets and npm leave cores idle. */
const SHARED_WORKERS = 4;

function project(
  name: ProjectName,
  settings: TestProjectInlineConfiguration['test'] = {},
): TestProjectInlineConfiguration {
  return {
    test: {
      name,
      ...files(name),
      ...sharedTestSettings,
      pool: 'forks',
      maxWorkers: SHARED_WORKERS,
      ...settings,
    },
  };
}

/**
 * Which project's files start first in the shared pool: the longest (npm installs, failovers) before the
 * many short ones, so the run does not end waiting on an install that started last; the unit files last.
 * Within a project, vitest's own order (the slowest of the last run first, or the largest file).
 */
const STARTS_FIRST: readonly ProjectName[] = ['packaging', 'postgres', 'runtimes', 'integration', 'unit'];

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = STARTS_FIRST.indexOf(spec.project.name as ProjectName);
      return at === -1 ? STARTS_FIRST.length : at;
    };
    const sorted = await super.sort(files);
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirstSequencer },
    // Set up once for the whole run, whichever projects it holds (a project's own would run per project).
    globalSetup: [...RUN_SETUPS],
    projects: [
      project('unit', {
        pool: 'threads',
        typecheck: {
          enabled: true,
          include: ['packages/*/test/**/*.test-d.ts'],
          tsconfig: './tsconfig.typecheck.json',
        },
      }),
      project('integration'),
      project('postgres'),
      project('runtimes'),
      project('packaging'),
    ],
  },
});
