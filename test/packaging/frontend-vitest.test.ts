// examples/vitest-setups from the packed tarballs: one Vitest install, run once per project (its own
// report, its own time): the React form in jsdom, happy-dom and Chromium (Browser Mode with the
// Playwright provider, msw's worker script copied by `msw init` and served), react-hook-form and TanStack
// Form, and TanStack Query in Vue, Solid and Svelte. One vitest test per case of the child's report.
// PLANT_STORE_FRONTEND_MAJORS=next (scripts/node-matrix.sh, Node 22) installs msw 3 and Vitest 5 and runs the
// projects whose row in frontend-setups.ts claims msw 3.
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { chromiumExecutable } from '../contract/browser/executable.js';
import { runOk } from './helpers.js';
import {
  type ChildRun,
  consumerEnv,
  installConsumer,
  jestReportCases,
  registerChildCases,
  runChild,
} from './consumer-project.js';
import { checkSetupRow, FRONTEND_MAJORS, frontendMajors, setupRow } from './frontend-setups.js';

const majors = frontendMajors();
const chromium = await chromiumExecutable();
const project = await installConsumer('vitest-setups', {
  sources: [
    'examples/react/src/add-plant-form.tsx',
    'examples/jest/src/add-plant-form.spec.tsx',
    'examples/jest/src/mocks.ts',
    'examples/jest/src/counting-client.ts',
  ],
  specs: FRONTEND_MAJORS[majors].vitest,
});
afterAll(() => project.remove());
console.log(`vitest-setups installed in ${project.installSeconds.toFixed(0)} s`);
// What `npx msw init public` does: the worker script of the installed msw, where Vite serves the site root.
await runOk(process.execPath, ['node_modules/msw/cli/index.js', 'init', 'public', '--no-save'], {
  cwd: project.dir,
  timeoutMs: 60_000,
  env: consumerEnv(),
});

// On msw 3 (the matrix), the setups whose row says it runs there.
const projects = ['jsdom', 'happy-dom', 'browser', 'forms', 'vue', 'solid', 'svelte'].filter(
  (name) => majors === 'current' || setupRow(name).msw.includes(3),
);
/** Runs one project of the setups in its own child vitest, with its own report. */
const runProject = (name: string) => {
  const report = join(project.dir, `report-${name}.json`);
  return runChild(
    project,
    [
      process.execPath,
      'node_modules/vitest/vitest.mjs',
      'run',
      '--project',
      name,
      // Two children at once must not read the results cache as the other writes it.
      '--no-cache',
      '--reporter=json',
      `--outputFile=${report}`,
    ],
    { path: report, read: jestReportCases },
    { env: { PLANT_STORE_CHROMIUM: chromium } },
  );
};
// Two children at a time: much of each is its start (Vite, the environment, a browser), not the
// cores. The cases are registered in the projects' order whichever ends first.
const runs = new Map(projects.map((name) => [name, undefined as Promise<ChildRun> | undefined]));
let next = 0;
const startNext = (): Promise<void> | undefined => {
  const name = projects[next++];
  if (name === undefined) return undefined;
  const child = runProject(name);
  runs.set(name, child);
  return child.then(() => startNext());
};
await Promise.all([startNext(), startNext()]);
for (const name of projects) {
  const child = await runs.get(name)!;
  console.log(
    `vitest ${project.version('vitest')} ${name} (msw ${project.version('msw')}): ${child.cases.length} cases in ${child.seconds.toFixed(1)} s`,
  );
  registerChildCases(`Vitest ${project.version('vitest')} ${name}`, child, setupRow(name).cases);
  checkSetupRow(name, project, majors);
}
