// Every fenced block of every published page (test/docs/blocks.ts finds them and says what each is) is
// run, type-checked, compared with the file it shows, or marked an illustration in the page; the counts
// are printed at the end.
// - A TypeScript or JavaScript block runs as written against the built packages: a test file (it imports
//   vitest) under vitest, anything else as a program. A program that calls the client gets a reference
//   server on the default address that takes any token (PLANT_STORE_TOKEN is set too); one that reads
//   DATABASE_URL gets a PostgreSQL database of its own; one that starts a server is stopped with SIGTERM
//   once its port answers, and must then exit 0. Browser code (it imports msw/browser) is bundled for the
//   browser, which proves it compiles and resolves; the browser suites run the same calls.
// - A fragment is type-checked, all of them in one `tsc` run, as a file of the consumer's own.
// - An `sh` block's commands: `plant-store-server …` runs the built CLI as written (a server until its
//   banner, then SIGTERM and exit 0); `npm install …` checks that every package named is one of ours or
//   one they name as a dependency.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlantStoreServer } from '@plant-store/server';
import { build, transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedTestSettings } from '../../vitest.config.js';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { type Block, blocksOf, publishedPages, root, shellCommands, shellWords } from './blocks.js';

const pages = publishedPages();
const blocks = pages.flatMap(blocksOf);
// Inside the repository, so that the snippets' imports resolve to the workspace's packages.
const here = join(root, 'test/docs/.snippets');
const cwd = mkdtempSync(join(tmpdir(), 'plant-store-snippets-'));
mkdirSync(here, { recursive: true });
afterAll(() => {
  rmSync(here, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

let database: TestDatabase | undefined;
afterAll(() => database?.close());

const nameOf = (block: Block) => `${block.page.replaceAll('/', '-')}-${block.line}`;

/** Whether something accepts connections on 127.0.0.1:`port`. */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('close', () => socket.destroy());
    setTimeout(() => socket.end(), 50);
  });

/** Runs `command` with a bound, resolving to its exit code and output; `stopOnPort`: SIGTERM once that port answers. */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stopOnPort?: number } = {}) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const bound = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let signalled = false;
    const poll =
      options.stopOnPort === undefined
        ? undefined
        : setInterval(async () => {
            // A server program goes on after its port opens (it registers its signal handlers once
            // startPlantStoreServer resolves), so it gets a moment before the signal.
            if (signalled || !(await answers(options.stopOnPort!)) || signalled) return;
            signalled = true;
            setTimeout(() => child.kill('SIGTERM'), 500);
          }, 100);
    child.on('exit', (code) => {
      clearTimeout(bound);
      clearInterval(poll);
      children.delete(child);
      resolve({ code, output });
    });
  });
}

/** Whether a block is a test file: it runs under vitest. */
const isTestFile = (block: Block) => block.code.includes("from 'vitest'");

/**
 * Every test-file block in one vitest run (one start of vitest, not one a block), with a config of its own
 * so that the repository's projects and global setups stay out: each block's file, and what vitest said of it.
 */
let testFileResults: Map<Block, { passed: boolean; output: string }> | undefined;
async function runTestFiles(): Promise<Map<Block, { passed: boolean; output: string }>> {
  const dir = join(here, 'test-files');
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, Block>();
  for (const block of blocks.filter(
    (each) => each.mark === 'run' && ['ts', 'js', 'tsx'].includes(each.lang) && isTestFile(each),
  )) {
    const file = join(dir, `${nameOf(block)}.test.ts`);
    writeFileSync(file, block.code);
    files.set(file, block);
  }
  // The repository's room for tests that start servers or run properties (vitest's default is 5 s).
  writeFileSync(
    join(dir, 'vitest.config.mjs'),
    `export default { test: { include: ['*.test.ts'], testTimeout: ${sharedTestSettings.testTimeout} } };\n`,
  );
  const report = join(dir, 'report.json');
  const result = await run(process.execPath, [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--root',
    dir,
    '--config',
    join(dir, 'vitest.config.mjs'),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ]);
  const outcomes = new Map<Block, { passed: boolean; output: string }>();
  let modules: { name: string; status: string; assertionResults: unknown[]; message?: string }[] = [];
  try {
    modules = JSON.parse(readFileSync(report, 'utf8')).testResults;
  } catch {
    // No report: every block fails below with vitest's output.
  }
  for (const [file, block] of files) {
    const module = modules.find((each) => each.name === file);
    const passed = module?.status === 'passed' && module.assertionResults.length > 0;
    outcomes.set(block, { passed, output: `${module?.message ?? ''}\n${result.output}` });
  }
  return outcomes;
}

async function runScript(block: Block): Promise<void> {
  const name = nameOf(block);
  if (isTestFile(block)) {
    testFileResults ??= await runTestFiles();
    const outcome = testFileResults.get(block)!;
    expect(outcome.passed, outcome.output).toBe(true);
    return;
  }
  if (block.code.includes("from 'msw/browser'")) {
    const file = join(here, `${name}.ts`);
    writeFileSync(file, block.code);
    const bundled = await build({
      entryPoints: [file],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(bundled.errors).toEqual([]);
    return;
  }
  const file = join(here, `${name}.mjs`);
  writeFileSync(file, (await transform(block.code, { loader: 'ts', format: 'esm', target: 'node20' })).code);
  const startsServer = /startPlantStoreServer|createServer\(|\.listen\(/.test(block.code);
  const usesClient = block.code.includes('@plant-store/client') && !startsServer;
  const env: NodeJS.ProcessEnv = { PLANT_STORE_TOKEN: 'snippet-token' };
  if (block.code.includes('process.env.DATABASE_URL')) {
    database ??= await openTestDatabase();
    env.DATABASE_URL = database.url;
  }
  const server = usesClient ? await startPlantStoreServer({ port: 4010, tokens: 'any' }) : undefined;
  try {
    const result = await run(process.execPath, [file], { env, ...(startsServer && { stopOnPort: 4010 }) });
    expect(result.code, result.output).toBe(0);
  } finally {
    await server?.close();
  }
}

/** Package names a page may tell users to install: ours, and what ours name as dependencies of any kind. */
function installable(): Set<string> {
  const names = new Set<string>();
  const manifests = [
    ...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name, 'package.json')),
    join(root, 'examples/package.json'),
  ];
  for (const path of manifests.filter((each) => existsSync(each))) {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    if (typeof manifest.name === 'string') names.add(manifest.name);
    for (const field of ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies']) {
      for (const dependency of Object.keys((manifest[field] as object | undefined) ?? {})) names.add(dependency);
    }
  }
  return names;
}

const cli = join(root, 'packages/server/dist/cli.js');

/** Why a command of an `sh` block cannot run here, or undefined when it can. */
function unrunnable(command: string): string | undefined {
  const words = shellWords(command);
  while (words[0] !== undefined && /^[A-Z_]+=/.test(words[0])) words.shift();
  if (words[0] === 'npx') words.shift();
  if (words[0] === 'npm' && words[1] === 'install') return undefined;
  if (words[0] !== 'plant-store-server') return `\`${words[0]}\` is not a command this test runs`;
  if (words.includes('…') || command.includes('…')) return 'it holds a placeholder (…)';
  const database = words[words.indexOf('--database') + 1];
  if (words.includes('--database') && !/@(127\.0\.0\.1|localhost)[:/]/.test(database ?? '')) {
    return 'it names a database this test does not have';
  }
  if (words[1] === 'import') return 'an import needs a data file and a database of its own';
  return undefined;
}

async function runShell(block: Block): Promise<void> {
  for (const command of shellCommands(block.code)) {
    const words = shellWords(command);
    const env: NodeJS.ProcessEnv = {};
    while (words[0] !== undefined && /^[A-Z_]+=/.test(words[0])) {
      const [key, ...value] = words.shift()!.split('=');
      env[key!] = value.join('=');
    }
    if (words[0] === 'npx') words.shift();
    if (words[0] === 'npm') {
      const known = installable();
      const named = words.slice(2).filter((word) => !word.startsWith('-'));
      expect(named.length, command).toBeGreaterThan(0);
      for (const name of named)
        expect(known, `${command}: ${name} is not a package of ours or one they use`).toContain(name);
      continue;
    }
    const args = words.slice(1);
    if (args.includes('--help') || args.includes('--version')) {
      const result = await run(process.execPath, [cli, ...args], { env });
      expect(result.code, result.output).toBe(0);
      continue;
    }
    const portIndex = args.indexOf('--port');
    const port = portIndex === -1 ? 4010 : Number(args[portIndex + 1]);
    const result = await run(process.execPath, [cli, ...args], { env, stopOnPort: port });
    expect(result.output).toContain('listening on');
    expect(result.code, result.output).toBe(0);
  }
}

/** Every fragment in one tsc run: the map from block to the compiler's messages about it. */
let fragmentErrors: Map<Block, string> | undefined;
async function typeCheckFragments(): Promise<Map<Block, string>> {
  const fragments = blocks.filter((block) => block.mark === 'fragment');
  const dir = join(here, 'fragments');
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, Block>();
  for (const block of fragments) {
    const file = `${nameOf(block)}.${block.lang === 'tsx' ? 'tsx' : 'ts'}`;
    // A module of its own, so that fragments never see each other's names.
    writeFileSync(join(dir, file), `${block.code}\nexport {};\n`);
    files.set(file, block);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../../tsconfig.base.json',
      compilerOptions: { lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: ['node'], jsx: 'react-jsx', noEmit: true },
      include: ['*.ts', '*.tsx'],
    }),
  );
  const result = await run(process.execPath, [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    dir,
    '--pretty',
    'false',
  ]);
  const errors = new Map<Block, string>();
  for (const line of result.output.split('\n')) {
    const file = /([\w.-]+\.tsx?)\(\d+,\d+\)/.exec(line)?.[1];
    const block = file === undefined ? undefined : files.get(file);
    if (block !== undefined) errors.set(block, `${errors.get(block) ?? ''}${line}\n`);
  }
  if (result.code !== 0 && errors.size === 0) errors.set(fragments[0]!, result.output);
  return errors;
}

const counts = { run: 0, fragment: 0, illustration: 0, file: 0, other: 0 };
afterAll(() => {
  console.log(
    `page blocks: ${blocks.length} in ${pages.length} pages; ${counts.run} run, ${counts.fragment} type-checked, ${counts.file} shown files compared, ${counts.illustration} marked illustrations, ${counts.other} text, SQL or YAML shown as they are`,
  );
});

beforeAll(() => {
  expect(existsSync(cli), 'build the packages first (npm run build)').toBe(true);
});

describe.each(pages)('%s', (page) => {
  const mine = blocks.filter((block) => block.page === page);
  if (mine.length === 0) {
    it('has no fenced blocks', () => expect(mine).toEqual([]));
    return;
  }
  it.each(mine.map((block) => ({ line: block.line, lang: block.lang || 'plain', mark: block.mark, block })))(
    'line $line: $lang, $mark',
    { timeout: 120_000 },
    async ({ mark, block }) => {
      if (mark === 'illustration') {
        counts.illustration++;
        return;
      }
      if (mark === 'file') {
        // docs/hosting.md's example markers are compared by test/runtimes/hosting-page.test.ts.
        if (block.file !== undefined) expect(block.code).toBe(readFileSync(join(root, block.file), 'utf8'));
        counts.file++;
        return;
      }
      if (mark === 'fragment') {
        expect(['ts', 'tsx'], 'only TypeScript fragments are type-checked').toContain(block.lang);
        fragmentErrors ??= await typeCheckFragments();
        expect(fragmentErrors.get(block) ?? '').toBe('');
        counts.fragment++;
        return;
      }
      if (block.lang === 'sh') {
        const reasons = shellCommands(block.code)
          .map((command) => [command, unrunnable(command)] as const)
          .filter(([, reason]) => reason !== undefined);
        expect(
          reasons.map(([command, reason]) => `${command}: ${reason}`),
          'an sh block this test cannot run must be marked `sh illustration` in the page',
        ).toEqual([]);
        await runShell(block);
        counts.run++;
        return;
      }
      if (!['ts', 'js', 'tsx'].includes(block.lang)) {
        // Text, SQL, YAML: shown as they are (a file of the repository when under `<!-- file: -->`).
        counts.other++;
        return;
      }
      await runScript(block);
      counts.run++;
    },
  );
});
