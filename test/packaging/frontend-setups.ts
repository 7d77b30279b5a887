// The frontend setups the consumer projects under examples/ run in (test/packaging/frontend-*.test.ts),
// and the "Tested setups" table of docs/frontend.md rendered from them: a row is here only because a
// wrapper runs it, with the expected number of cases, and each run checks the installed majors against
// its row (checkSetupRow), so the table cannot claim a version or a setup that was not run.
import { it } from 'vitest';
import type { ConsumerProject } from './consumer-project.js';

/** `current`: what `npm test` installs on Node 20; `next`: msw 3 and the majors that need Node 22 (the matrix). */
export type MajorSet = 'current' | 'next';

export function frontendMajors(): MajorSet {
  const value = process.env.PLANT_STORE_FRONTEND_MAJORS ?? 'current';
  if (value !== 'current' && value !== 'next') {
    throw new Error(`PLANT_STORE_FRONTEND_MAJORS is 'current' or 'next', got '${value}'`);
  }
  return value;
}

/** Registry specs installed over each consumer project's own package.json, per major set. */
export const FRONTEND_MAJORS: Record<MajorSet, Record<'jest' | 'vitest' | 'playwright', readonly string[]>> = {
  current: { jest: [], vitest: [], playwright: [] },
  next: {
    jest: ['msw@^3'],
    vitest: ['msw@^3', 'vitest@^5', '@vitest/browser-playwright@^5', 'jsdom@^31'],
    // Without @msw/playwright, whose peer range is msw ^2.12.10 (its move to msw 3's network sources is
    // https://github.com/mswjs/playwright/pull/48, open): the app's own worker and Storybook.
    playwright: ['msw@^3'],
  },
};

/** One row of the table. */
export interface SetupRow {
  readonly id: string;
  /** The wrapper that runs it: test/packaging/frontend-<runner>.test.ts. */
  readonly runner: 'jest' | 'vitest' | 'playwright';
  readonly setup: string;
  /** Package name, its display name and the major installed per major set (`next` where it differs). */
  readonly packages: readonly { name: string; label: string; current: number; next?: number }[];
  /** The msw majors it runs on: 3 only where the matrix runs it (FRONTEND_MAJORS.next installs msw 3). */
  readonly msw: readonly (2 | 3)[];
  /** Why it does not run on msw 3, with the upstream issue, where it does not. */
  readonly notOnMsw3?: string;
  /** Cases the child runner holds. */
  readonly cases: number;
  readonly checked: string;
}

const REACT = [
  { name: 'react', label: 'React', current: 19 },
  { name: '@testing-library/react', label: 'React Testing Library', current: 16 },
];
const VITEST = { name: 'vitest', label: 'Vitest', current: 4, next: 5 };
/** Vitest on the setups that stay on msw 2: the matrix does not run them, so no second major. */
const VITEST_4 = { name: 'vitest', label: 'Vitest', current: 4 };
const REACT_FLOWS =
  'the form: a create shown, 40003 beside the id (seeded with `makePlants`), 401, 503 retried then shown, 503 once then created, an id refused before sending';
const PLAYWRIGHT_TEST = { name: '@playwright/test', label: 'Playwright Test', current: 1 };
const VITE_REACT = [
  { name: 'vite', label: 'Vite', current: 8 },
  { name: 'react', label: 'React', current: 19 },
];
const PAGE_FLOWS =
  'in Chromium: a create shown, 2^53 + 1 sent exactly, 40003 beside the id (seeded with `makePlants`), 401, 503 retried then shown';
const ADAPTER_FLOWS =
  'a create through `createPlantMutationOptions` shown, a 503 retried by the client then shown, 40003; the error union narrowed';

const BROWSER_CONDITION =
  "its testing setup resolves packages with the `browser` condition, under which msw 3's `msw/node` cannot load `@mswjs/interceptors/ClientRequest` (exported as `null` for browsers): the failure of [mswjs/msw#2545](https://github.com/mswjs/msw/issues/2545)";

/** A TanStack Query adapter's row: on msw 3 unless `notOnMsw3` says why not. */
function adapterRow(
  id: string,
  name: string,
  framework: SetupRow['packages'][number],
  queryMajor: number,
  notOnMsw3?: string,
): SetupRow {
  const query = `@tanstack/${id}-query`;
  return {
    id,
    runner: 'vitest',
    setup: `TanStack Query in ${name}, Testing Library, Vitest \`jsdom\``,
    packages: [notOnMsw3 ? VITEST_4 : VITEST, framework, { name: query, label: query, current: queryMajor }],
    msw: notOnMsw3 ? [2] : [2, 3],
    ...(notOnMsw3 ? { notOnMsw3 } : {}),
    cases: 3,
    checked: ADAPTER_FLOWS,
  };
}

export const SETUP_ROWS: readonly SetupRow[] = [
  {
    id: 'jest',
    runner: 'jest',
    setup: 'Jest, `jest-fixed-jsdom`, babel-jest (msw 3: Node 24.9+, `node --experimental-vm-modules`)',
    packages: [{ name: 'jest', label: 'Jest', current: 30 }, ...REACT],
    msw: [2, 3],
    cases: 6,
    checked: `${REACT_FLOWS}; plain \`jsdom\` shown to fail with "TextEncoder is not defined" (or \`Request\`, by msw's version)`,
  },
  {
    id: 'jsdom',
    runner: 'vitest',
    setup: 'Vitest, `jsdom` environment',
    packages: [VITEST, { name: 'jsdom', label: 'jsdom', current: 27, next: 31 }, ...REACT],
    msw: [2, 3],
    cases: 6,
    checked: REACT_FLOWS,
  },
  {
    id: 'happy-dom',
    runner: 'vitest',
    setup: 'Vitest, `happy-dom` environment',
    packages: [VITEST_4, { name: 'happy-dom', label: 'happy-dom', current: 21 }, ...REACT],
    msw: [2],
    notOnMsw3:
      "on msw 3 and Vitest 5, the requests of happy-dom's own fetch (Vitest's `fetch` in this environment) are not intercepted and fail as network errors; no upstream issue found (related: [capricorn86/happy-dom#1626](https://github.com/capricorn86/happy-dom/issues/1626))",
    cases: 6,
    checked: REACT_FLOWS,
  },
  {
    id: 'browser',
    runner: 'vitest',
    setup: 'Vitest Browser Mode, Playwright provider, Chromium, `setupWorker`',
    packages: [VITEST, { name: 'playwright', label: 'Playwright', current: 1 }, ...REACT],
    msw: [2, 3],
    cases: 6,
    checked: `${REACT_FLOWS}; msw's worker script served by Vite from \`public/\``,
  },
  {
    id: 'forms',
    runner: 'vitest',
    setup: 'react-hook-form (`standardSchemaResolver`) and TanStack Form, Vitest `jsdom`',
    packages: [
      VITEST,
      { name: 'react-hook-form', label: 'react-hook-form', current: 7 },
      { name: '@hookform/resolvers', label: '@hookform/resolvers', current: 7 },
      { name: '@tanstack/react-form', label: 'TanStack Form', current: 1 },
    ],
    msw: [2, 3],
    cases: 8,
    checked:
      "each library with `newPlantFormSchema`: an id out of range and an empty id refused with the server's words, nothing sent; 2^53 + 1 sent exactly; 40003 beside the id",
  },
  adapterRow('vue', 'Vue', { name: 'vue', label: 'Vue', current: 3 }, 5),
  adapterRow('solid', 'Solid', { name: 'solid-js', label: 'Solid', current: 1 }, 5, BROWSER_CONDITION),
  adapterRow('svelte', 'Svelte 5', { name: 'svelte', label: 'Svelte', current: 5 }, 6, BROWSER_CONDITION),
  {
    id: 'playwright-msw',
    runner: 'playwright',
    setup: 'Playwright Test, `@msw/playwright` (routes, no worker), the React example built for production',
    packages: [PLAYWRIGHT_TEST, { name: '@msw/playwright', label: '@msw/playwright', current: 0 }, ...VITE_REACT],
    msw: [2],
    notOnMsw3:
      '@msw/playwright 0.6 takes msw ^2.12.10; its move to msw 3 is [mswjs/playwright#48](https://github.com/mswjs/playwright/pull/48), open',
    cases: 5,
    checked: PAGE_FLOWS,
  },
  {
    id: 'playwright-worker',
    runner: 'playwright',
    setup: "Playwright Test, the app's own `setupWorker`, the React example built for production",
    packages: [PLAYWRIGHT_TEST, ...VITE_REACT],
    msw: [2, 3],
    cases: 5,
    checked: `${PAGE_FLOWS}; the worker script in the build folder`,
  },
  {
    id: 'storybook',
    runner: 'playwright',
    setup: 'Storybook, `msw-storybook-addon`, `storybook build` checked with Playwright Test',
    packages: [
      { name: 'storybook', label: 'Storybook', current: 10 },
      { name: '@storybook/react-vite', label: '@storybook/react-vite', current: 10 },
      { name: 'msw-storybook-addon', label: 'msw-storybook-addon', current: 3 },
      { name: 'react', label: 'React', current: 19 },
    ],
    msw: [2, 3],
    cases: 4,
    checked:
      'a story per answer (the store, 401, 503): a create shown, 40003 beside the id (seeded with `makePlants`), the sign-in message, 503 retried then shown',
  },
];

export function setupRow(id: string): SetupRow {
  const row = SETUP_ROWS.find((r) => r.id === id);
  if (row === undefined) throw new Error(`no row '${id}' in SETUP_ROWS`);
  return row;
}

/** The installed majors of a run match its row's (and the msw major is one the row claims). */
export function checkSetupRow(id: string, project: ConsumerProject, majors: MajorSet): void {
  const row = setupRow(id);
  it(`${row.setup}: the installed majors are the ones docs/frontend.md names`, () => {
    const wrong: string[] = [];
    for (const pkg of row.packages) {
      const expected = majors === 'next' ? (pkg.next ?? pkg.current) : pkg.current;
      const installed = project.version(pkg.name);
      if (Number(installed.split('.')[0]) !== expected)
        wrong.push(`${pkg.name} ${installed}, the table says ${expected}`);
    }
    const msw = Number(project.version('msw').split('.')[0]);
    if (!row.msw.includes(msw as 2 | 3)) wrong.push(`msw ${msw}, the table says ${row.msw.join(', ')}`);
    if (wrong.length > 0) throw new Error(wrong.join('\n'));
  });
}

/** The table as docs/frontend.md holds it between its markers. */
export function renderSetupTable(): string {
  const versions = (row: SetupRow) =>
    row.packages
      .map((p) => `${p.label} ${p.current}${p.next !== undefined && p.next !== p.current ? ` / ${p.next}` : ''}`)
      .join(', ');
  const lines = [
    '| setup | versions (`npm test` / matrix) | msw | cases | what is checked |',
    '|---|---|---|---|---|',
    ...SETUP_ROWS.map(
      (row) => `| ${row.setup} | ${versions(row)} | ${row.msw.join(', ')} | ${row.cases} | ${row.checked} |`,
    ),
    '',
    'Not on msw 3:',
    '',
    ...SETUP_ROWS.filter((row) => row.notOnMsw3 !== undefined).map((row) => `- ${row.setup}: ${row.notOnMsw3}.`),
  ];
  return lines.join('\n');
}

/** The one line the README and the mocks' page give: the setups of the table, by name. */
export function renderSetupList(): string {
  return SETUP_ROWS.map((row) => row.setup).join('; ');
}
