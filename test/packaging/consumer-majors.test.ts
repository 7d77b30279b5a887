// A consumer's project on the majors a Node 22 or 24 user gets from `npm i -D msw vitest typescript`:
// msw 3, vitest 5 and TypeScript 7. The packed tarballs are installed together with them into a fresh
// project outside the repository; TypeScript 7's tsc type-checks a test file against what was installed
// (strict, nodenext) and vitest 5 runs it. msw 3 and vitest 5 need Node 22.12 or newer, so this file is
// not part of `npm test`: scripts/node-matrix.sh runs it under Node 22 (vitest.consumer.config.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installInto, npmEnv, packedTarballs, readJson, run, runOk, scratchDirectory } from './helpers.js';

// What a user gets today for each major; the versions installed are printed with the results.
const MAJORS = { msw: 3, vitest: 5, typescript: 7 } as const;

const work = scratchDirectory('plant-store-majors-');
const app = join(work, 'app');

// The test a frontend developer writes: msw 3 spells the unhandled-request option `onUnhandledFrame`.
const TEST_FILE = `import { createPlant, ErrorCode, PlantStoreApiError } from '@plant-store/client';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const mocks = createPlantStoreHandlers();
const server = setupServer(...mocks.handlers);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(async () => {
  server.resetHandlers();
  await mocks.store.clear();
});
afterAll(() => server.close());

it('creates a plant', async () => {
  await expect(createPlant('any-token', { id: 1, name: 'Fern', tag: 'shade' })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
  expect(await mocks.store.list()).toEqual([{ id: 1n, name: 'Fern', tag: 'shade' }]);
});

it('refuses another plant under a stored id with 40003', async () => {
  await mocks.store.insert({ id: 7n, name: 'Oak' });
  const error: unknown = await createPlant('any-token', { id: 7, name: 'Elm' }).catch((e: unknown) => e);
  expect(PlantStoreApiError.is(error) && error.code).toBe(ErrorCode.ID_CONFLICT);
  expect(await mocks.store.list()).toEqual([{ id: 7n, name: 'Oak' }]);
});

it('answers with a scenario passed to server.use(), then with the store again', async () => {
  server.use(mocks.scenarios.internalError({ once: true }));
  await expect(createPlant('any-token', { id: 2, name: 'Ivy' }, { retries: 0 })).rejects.toMatchObject({
    status: 500,
    code: ErrorCode.INTERNAL_ERROR,
  });
  await expect(createPlant('any-token', { id: 2, name: 'Ivy' })).resolves.toEqual({ name: 'Ivy' });
});

// Calls the declarations must refuse: tsc fails on a directive with no error under it, so the
// types resolved are the packages' own, not any.
export function refusedCalls(): void {
  // @ts-expect-error an id is a number or a bigint
  void createPlant('any-token', { id: '1', name: 'Fern' });
  // @ts-expect-error tokens are a list or "any"
  createPlantStoreHandlers({ tokens: 'some' });
  // @ts-expect-error a scenario takes a service error code
  mocks.scenarios.error(12345);
}
`;

const installed = (name: string): string => readJson(join(app, 'node_modules', name, 'package.json')).version;
const majorOf = (version: string) => Number(version.split('.')[0]);

beforeAll(async () => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (major < 22 || (major === 22 && minor < 12)) {
    throw new Error(
      `msw 3 and vitest 5 need Node 22.12 or newer, this is ${process.version}: run scripts/node-matrix.sh 22`,
    );
  }
  const tarballs = (await packedTarballs(join(work, 'tarballs'))).map((p) => p.tarball);

  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'plant-store-majors', private: true, type: 'module' }, null, 2),
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify(
      { compilerOptions: { strict: true, module: 'nodenext', target: 'es2022', noEmit: true }, include: ['*.ts'] },
      null,
      2,
    ),
  );
  writeFileSync(join(app, 'plants.test.ts'), TEST_FILE);
  // Without the peer range that takes msw 3, this install stops with ERESOLVE.
  await installInto(app, [...tarballs, ...Object.entries(MAJORS).map(([name, major]) => `${name}@^${major}`)], 300_000);
  console.log(
    `consumer on Node ${process.versions.node}: ${Object.keys(MAJORS)
      .map((name) => `${name} ${installed(name)}`)
      .join(', ')}`,
  );
}, 360_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

it('installs msw 3, vitest 5 and TypeScript 7 beside the tarballs with every peer range satisfied', async () => {
  for (const [name, major] of Object.entries(MAJORS)) expect(majorOf(installed(name)), name).toBe(major);
  const result = await run('npm', ['ls', '--all', '--json'], { cwd: app, env: npmEnv, timeoutMs: 60_000 });
  const tree = JSON.parse(result.stdout);
  expect(tree.problems ?? [], result.stderr).toEqual([]);
  expect(tree.dependencies['@plant-store/msw'].dependencies.msw.version).toBe(installed('msw'));
});

it("type-checks the test file against the installed packages with TypeScript 7's tsc (strict, nodenext)", async () => {
  const tsc = (args: string[]) =>
    run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), ...args], { cwd: app, timeoutMs: 120_000 });
  expect((await tsc(['--version'])).stdout).toMatch(/^Version 7\./);
  const result = await tsc(['-p', '.', '--pretty', 'false']);
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
});

it('runs the test file with vitest 5 on msw 3: a create, a conflict and a scenario', async () => {
  const report = join(work, 'vitest-report.json');
  const result = await run(
    process.execPath,
    [join(app, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json', `--outputFile=${report}`],
    { cwd: app, timeoutMs: 120_000 },
  );
  const output = `${result.stdout}\n${result.stderr}`;
  expect(result.status, output).toBe(0);
  const { numPassedTests, numFailedTests, numTotalTests } = JSON.parse(readFileSync(report, 'utf8'));
  expect({ numPassedTests, numFailedTests, numTotalTests }, output).toEqual({
    numPassedTests: 3,
    numFailedTests: 0,
    numTotalTests: 3,
  });
});

it('loads @plant-store/msw with require on msw 3, which ships ES modules only', async () => {
  const { stdout } = await runOk(
    process.execPath,
    [
      '--input-type=commonjs',
      '-e',
      "const { createPlantStoreHandlers } = require('@plant-store/msw'); const { HttpHandler } = require('msw');" +
        ' console.log(createPlantStoreHandlers().handlers.every((h) => h instanceof HttpHandler))',
    ],
    { cwd: app, timeoutMs: 30_000 },
  );
  expect(stdout.trim()).toBe('true');
});
