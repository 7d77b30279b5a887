// examples/playwright from the packed tarballs: Playwright Test end to end against the React example
// built for production (`vite build`, served by `vite preview`), mocked once with @msw/playwright
// (routes, no worker) and once with the app's own setupWorker started in the page; and Storybook's
// build of the form's stories (msw-storybook-addon) checked in the same Chromium. Chromium is the one
// the repository finds (test/contract/browser/executable.ts), passed as launchOptions.executablePath.
// PLANT_STORE_FRONTEND_MAJORS=next (scripts/node-matrix.sh, Node 22) installs msw 3 without
// @msw/playwright (msw 2 only) and runs the setups whose row claims msw 3: the app's worker and Storybook.
import { join } from 'node:path';
import { afterAll, it } from 'vitest';
import { chromiumExecutable } from '../contract/browser/executable.js';
import {
  type ChildRun,
  consumerEnv,
  installConsumer,
  playwrightReportCases,
  registerChildCases,
  runChild,
} from './consumer-project.js';
import { checkSetupRow, FRONTEND_MAJORS, frontendMajors, setupRow } from './frontend-setups.js';
import { freePort, runOk } from './helpers.js';

const majors = frontendMajors();
const chromium = await chromiumExecutable();
const project = await installConsumer('playwright', {
  sources: [
    ['examples/react/src', 'src'],
    ['examples/react/index.html', 'index.html'],
    ['examples/react/vite.config.ts', 'vite.config.ts'],
  ],
  specs: FRONTEND_MAJORS[majors].playwright,
  omit: majors === 'next' ? ['@msw/playwright'] : [],
});
afterAll(() => project.remove());

// The builds a user's CI runs before the tests; their time is printed with the counts.
const started = performance.now();
const step = (args: string[]) =>
  runOk(process.execPath, args, { cwd: project.dir, timeoutMs: 300_000, env: consumerEnv() });
await step(['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);
await step(['node_modules/vite/bin/vite.js', 'build', '-c', 'vite.mocks.config.ts', '--logLevel', 'warn']);
await step(['node_modules/msw/cli/index.js', 'init', 'dist', '--no-save']);
await step(['node_modules/msw/cli/index.js', 'init', 'public', '--no-save']);
await step(['node_modules/storybook/dist/bin/dispatcher.js', 'build', '--quiet', '-o', 'storybook-static']);
const buildSeconds = (performance.now() - started) / 1000;

const SETUPS = [
  ['playwright-msw', 'app-msw-playwright.spec.ts'],
  ['playwright-worker', 'app-setup-worker.spec.ts'],
  ['storybook', 'storybook.spec.ts'],
].filter(([id]) => majors === 'current' || setupRow(id!).msw.includes(3)) as [string, string][];

const report = join(project.dir, 'report.json');
const child = await runChild(
  project,
  [
    process.execPath,
    'node_modules/@playwright/test/cli.js',
    'test',
    '--reporter=json',
    ...SETUPS.map(([, file]) => `e2e/${file}`),
  ],
  { path: report, read: playwrightReportCases },
  {
    env: {
      PLANT_STORE_CHROMIUM: chromium,
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
      APP_PORT: String(await freePort()),
      STORYBOOK_PORT: String(await freePort()),
    },
    timeoutMs: 600_000,
  },
);
console.log(
  `@playwright/test ${project.version('@playwright/test')}, storybook ${project.version('storybook')} (msw ${project.version('msw')}): ${child.cases.length} cases in ${child.seconds.toFixed(1)} s, builds ${buildSeconds.toFixed(1)} s, install ${project.installSeconds.toFixed(0)} s`,
);

/** The cases of one spec file, with the run's exit status. */
const casesOf = (file: string): ChildRun => ({ ...child, cases: child.cases.filter((c) => c.name.startsWith(file)) });
for (const [id, file] of SETUPS) {
  registerChildCases(setupRow(id).setup, casesOf(file), setupRow(id).cases);
  checkSetupRow(id, project, majors);
}

it('every case of the run belongs to one of its setups', () => {
  const stray = child.cases.filter((c) => !SETUPS.some(([, file]) => c.name.startsWith(file)));
  if (stray.length > 0) throw new Error(stray.map((c) => `${c.name}: ${c.failures.join('\n')}`).join('\n'));
});
