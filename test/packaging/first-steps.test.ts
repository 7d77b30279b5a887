// The front page's first steps as a newcomer takes them, read from README.md and run as written, from the
// packed tarballs in fresh projects:
// - "Call the service": the install line, the server started with the page's flags (on a port of its own:
//   other tests use 4010, so `--port 0` is added and the script's address follows the banner), the token
//   exported, the page's add-plant.mjs saved and run with node (twice: a create is idempotent), its
//   output compared with the page's, the plant found stored, the server stopped with SIGTERM;
// - "Mock the service in tests": the install line and the test file, run by Vitest beside
//   docs/testing.md's "Vitest, in Node" recipe (its install line is the same, so one install serves both);
// - and no page installs msw or Vitest without a major: the newest majors need Node 22.12.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type Block, blocksOf, publishedPages, shellCommands, shellWords } from '../docs/blocks.js';
import {
  type ConsumerProject,
  consumerEnv,
  jestReportCases,
  registerChildCases,
  runChild,
} from './consumer-project.js';
import {
  installInto,
  packedTarballs,
  publishedPackages,
  readJson,
  repoRoot,
  run,
  scratchDirectory,
} from './helpers.js';
import { createPlant, startCli } from './server-cli.js';

const work = scratchDirectory('plant-store-first-steps-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The blocks of `page` under `heading` (a whole heading line), up to the next heading of its level or above. */
function sectionBlocks(page: string, heading: string): Block[] {
  const lines = readFileSync(join(repoRoot, page), 'utf8').split('\n');
  const level = heading.indexOf(' ');
  let start: number | undefined;
  let end = lines.length;
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    if (start === undefined) {
      if (line === heading) start = index;
    } else if (/^#{1,6} /.test(line) && line.indexOf(' ') <= level) {
      end = index;
      break;
    }
  }
  if (start === undefined) throw new Error(`${page} has no section "${heading}"`);
  // Block lines are 1-based: a fence of the section lies after the heading and before the next one.
  return blocksOf(page).filter((block) => block.line > start + 1 && block.line <= end);
}

/** The commands of the section's `sh` blocks, in order. */
const commandsOf = (blocks: readonly Block[]) =>
  blocks.filter((block) => block.lang === 'sh').flatMap((block) => shellCommands(block.code).map(shellWords));

/** Every `@plant-store/*` package `name` needs installed from a tarball: itself and its dependencies of ours. */
function ourClosure(name: string, into = new Set<string>()): Set<string> {
  if (into.has(name)) return into;
  const pkg = publishedPackages.find((each) => each.name === name);
  if (pkg === undefined) throw new Error(`${name} is not a package of this repository`);
  into.add(name);
  const dependencies = readJson(join(pkg.dir, 'package.json')).dependencies ?? {};
  for (const dependency of Object.keys(dependencies)) {
    if (dependency.startsWith('@plant-store/')) ourClosure(dependency, into);
  }
  return into;
}

/**
 * Runs an `npm install …` line of a page in `dir` as it will run once the packages are published: our
 * packages (and those they depend on) from the run's tarballs, the rest from the registry as written.
 */
async function installLine(dir: string, words: readonly string[]): Promise<void> {
  expect(words.slice(0, 2), words.join(' ')).toEqual(['npm', 'install']);
  const tarballs = await packedTarballs(join(work, 'tarballs'));
  const ours = new Set<string>();
  const specs: string[] = [];
  for (const word of words.slice(2)) {
    if (word.startsWith('@plant-store/')) ourClosure(word, ours);
    else specs.push(word);
  }
  const tarballOf = (name: string) => tarballs.find((packed) => packed.name === name)!.tarball;
  mkdirSync(dir, { recursive: true });
  // What `npm init -y` writes, less what does not matter here.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: basename(dir), private: true }, null, 2)}\n`);
  await installInto(dir, [...[...ours].map(tarballOf), ...specs], 300_000);
}

const call = sectionBlocks('README.md', '### Call the service: `@plant-store/client`');
const mock = sectionBlocks('README.md', '### Mock the service in tests: `@plant-store/msw`');
const recipe = sectionBlocks('docs/testing.md', '## Vitest, in Node');

const callCommands = commandsOf(call);
const mockCommands = commandsOf(mock);
const recipeCommands = commandsOf(recipe);

const callDir = join(work, 'call');
const mockDir = join(work, 'mock');
const started = performance.now();
// The two projects install side by side (npm spends most of it waiting on the disk and the cache).
await Promise.all([
  installLine(callDir, callCommands.find((words) => words[1] === 'install')!),
  installLine(mockDir, mockCommands.find((words) => words[1] === 'install')!),
]);
const installSeconds = (performance.now() - started) / 1000;

// The README's test file, named by its first line, and the recipe's files, each under its file name.
const testFile = mock.find((block) => block.lang === 'ts')!;
const testName = /^\/\/ ([\w.-]+\.test\.ts)\b/.exec(testFile.code)?.[1];
if (testName === undefined) throw new Error("the README's mocks test file does not name itself on its first line");
writeFileSync(join(mockDir, testName), testFile.code);
const recipeFiles = recipe.filter((block) => block.mark === 'file');
for (const block of recipeFiles) writeFileSync(join(mockDir, basename(block.file!)), block.code);
const written = [testFile.code, ...recipeFiles.map((block) => block.code)];
const cases = written.reduce((sum, code) => sum + (code.match(/^(it|test)\(/gm)?.length ?? 0), 0);

// The README's run command (`npx vitest run`) as the bin itself, with a report to read the cases from.
const mockProject: ConsumerProject = {
  dir: mockDir,
  installSeconds,
  version: (name) => readJson(join(mockDir, 'node_modules', name, 'package.json')).version,
  remove: () => rmSync(mockDir, { recursive: true, force: true }),
};
const report = join(mockDir, 'report.json');
const vitest = await runChild(
  mockProject,
  [process.execPath, 'node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${report}`],
  { path: report, read: jestReportCases },
  { timeoutMs: 120_000 },
);
console.log(
  `first steps: installs ${installSeconds.toFixed(1)} s; vitest ${mockProject.version('vitest')} on msw ${mockProject.version('msw')}: ${vitest.cases.length} cases in ${vitest.seconds.toFixed(1)} s`,
);

it("has the Vitest recipe install and run with the README's mocks commands, so one project runs both", () => {
  expect(recipeCommands).toEqual(
    mockCommands.filter((words) => words[1] === 'install').concat([['npx', 'vitest', 'run']]),
  );
  expect(testFile.code.split('\n')[0]).toContain('npx vitest run');
  expect(recipeFiles.map((block) => block.file)).toEqual([
    'examples/frontend-vitest/add-plant.ts',
    'examples/frontend-vitest/add-plant.test.ts',
  ]);
});

registerChildCases("the README's mocks quick start and docs/testing.md's Vitest recipe", vitest, cases);

it('calls the service as the README says: the server, the token, add-plant.mjs run with node', async () => {
  // The commands, in the page's order: the install (done above), the server, the token, the script.
  const [install, server, exported, node, ...rest] = callCommands;
  expect(install?.slice(0, 2)).toEqual(['npm', 'install']);
  expect(rest, 'commands the test does not run').toEqual([]);

  // `npx plant-store-server …`: the bin itself (npx's shell would not pass SIGTERM on), on a free port.
  expect(server?.slice(0, 2)).toEqual(['npx', 'plant-store-server']);
  expect(server).not.toContain('--port');
  const cli = await startCli(callDir, [...server!.slice(2), '--port', '0']);
  try {
    expect(cli.output()).toMatch(/^Plant Store server listening on http:\/\/127\.0\.0\.1:\d+\n/);

    // `export NAME=value`: the script's environment.
    expect(exported?.[0]).toBe('export');
    const [name, ...value] = exported![1]!.split('=');
    const env = consumerEnv({ [name!]: value.join('=') });

    // `node <file>`: the page's js block saved under that name, its address the server's.
    expect(node?.[0]).toBe('node');
    const file = node![1]!;
    const script = call.find((block) => block.lang === 'js')!;
    expect(script.code.split('\n')[0]).toBe(`// ${file}`);
    expect(script.code.match(/http:\/\/127\.0\.0\.1:4010/g)).toHaveLength(1);
    writeFileSync(join(callDir, file), script.code.replace('http://127.0.0.1:4010', cli.url));

    // The output the page shows, on the first run and again on a second (a create is idempotent by id).
    const shown = call.find((block) => block.lang === 'text')!.code;
    for (const attempt of ['first', 'second']) {
      const result = await run(process.execPath, [file], { cwd: callDir, env, timeoutMs: 30_000 });
      expect(result.status, `${attempt} run:\n${result.stderr}`).toBe(0);
      expect(result.stdout, `${attempt} run`).toBe(shown);
    }

    // Stored: another plant under the same id is refused with 40003, and the same plant replays its 200.
    const token = value.join('=');
    expect(await createPlant(cli.url, token, { id: 1, name: 'Oak' })).toMatchObject([400, { error: 40003 }]);
    expect(await createPlant(cli.url, token, { id: 1, name: 'Fern', tag: 'shade' })).toEqual([
      200,
      { name: 'Fern', tag: 'shade' },
    ]);
  } finally {
    expect(await cli.stop()).toBe(0);
  }
});

it('has no page install msw or Vitest without a major (their newest need Node 22.12; ours run on 20.19)', () => {
  const bare: string[] = [];
  for (const page of publishedPages()) {
    for (const words of commandsOf(blocksOf(page))) {
      if (words[0] !== 'npm' || !['install', 'i'].includes(words[1]!)) continue;
      for (const word of words.slice(2)) if (['msw', 'vitest'].includes(word)) bare.push(`${page}: ${words.join(' ')}`);
    }
  }
  expect(bare).toEqual([]);
});
