// A frontend setup as a user has it: one of the consumer projects under examples/ (its own package.json,
// config and tests, no workspace member) copied into a fresh folder outside the repository, the packed
// tarballs installed into it beside the registry packages its package.json names, and its own test
// runner run there with a JSON report. The wrapper test registers one vitest test per case of that
// report, so the child's counts reach `N passed, M failed`.
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { installInto, packedTarballs, readJson, repoRoot, run, type RunResult, scratchDirectory } from './helpers.js';

/** A consumer project installed in a folder of its own. */
export interface ConsumerProject {
  /** The project's folder (its package.json, node_modules). */
  readonly dir: string;
  /** Seconds the copy and install took (the run's tarballs are packed once, by its global setup). */
  readonly installSeconds: number;
  /** The installed version of a package, read from its package.json. */
  version(name: string): string;
  /** Deletes the folder. */
  remove(): void;
}

export interface ConsumerOptions {
  /** Registry specs installed over the project's own (`msw@^3`, `vitest@^5`). */
  readonly specs?: readonly string[];
  /** Packages taken out of the project's package.json before the install (one that would refuse `specs`). */
  readonly omit?: readonly string[];
  /** Bound of the install, in milliseconds. */
  readonly installTimeoutMs?: number;
  /**
   * Files of the repository copied into the project: a path goes to the project's `src/`, a pair
   * `[path, destination]` to that destination. The React example's form by default.
   */
  readonly sources?: readonly (string | readonly [string, string])[];
}

/** What a frontend installs: the server and the stores stay out (their dependencies cost install time). */
const FRONTEND_PACKAGES = ['@plant-store/core', '@plant-store/client', '@plant-store/msw', '@plant-store/query'];

/** Copies examples/<name> into a fresh folder and installs it with the packed tarballs. */
export async function installConsumer(name: string, options: ConsumerOptions = {}): Promise<ConsumerProject> {
  const started = performance.now();
  const work = scratchDirectory(`plant-store-${name}-`);
  const dir = join(work, name);
  const source = join(repoRoot, 'examples', name);
  if (!existsSync(join(source, 'package.json'))) throw new Error(`examples/${name} has no package.json`);
  cpSync(source, dir, { recursive: true, filter: (path) => !/[\\/](node_modules|dist|storybook-static)$/.test(path) });
  if (options.omit?.length) {
    const manifest = readJson(join(dir, 'package.json'));
    for (const name of options.omit) delete manifest.devDependencies?.[name];
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (const file of options.sources ?? ['examples/react/src/add-plant-form.tsx']) {
    const [from, to] = typeof file === 'string' ? [file, join('src', file.split('/').pop()!)] : file;
    cpSync(join(repoRoot, from), join(dir, to), { recursive: true });
  }
  const tarballs = (await packedTarballs(join(work, 'tarballs')))
    .filter((p) => FRONTEND_PACKAGES.includes(p.name))
    .map((p) => p.tarball);
  await installInto(dir, [...tarballs, ...(options.specs ?? [])], options.installTimeoutMs ?? 480_000);
  return {
    dir,
    installSeconds: (performance.now() - started) / 1000,
    version: (pkg) => readJson(join(dir, 'node_modules', pkg, 'package.json')).version,
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}

/** One case of a child runner's report. */
export interface ChildCase {
  readonly name: string;
  readonly status: string;
  readonly failures: readonly string[];
}

/** The cases of a Jest or Vitest JSON report (Vitest writes Jest's shape). */
export function jestReportCases(path: string): ChildCase[] {
  const report = readJson(path);
  return (report.testResults ?? []).flatMap((file: any) => {
    const relative = String(file.name ?? '')
      .split(/[\\/]/)
      .slice(-2)
      .join('/');
    const cases = (file.assertionResults ?? []).map((a: any) => ({
      name: `${relative} > ${a.fullName ?? a.title}`,
      status: a.status,
      failures: a.failureMessages ?? [],
    }));
    // A file that failed to load has no case of its own: it is one failed case here.
    if (cases.length === 0 && file.status === 'failed') {
      return [{ name: `${relative} (did not load)`, status: 'failed', failures: [file.message ?? 'failed to load'] }];
    }
    return cases;
  });
}

/** The cases of a Playwright Test JSON report. */
export function playwrightReportCases(path: string): ChildCase[] {
  const report = readJson(path);
  const cases: ChildCase[] = [];
  const walk = (suite: any, titles: string[]) => {
    const here = suite.title ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const results = test.results ?? [];
        const last = results[results.length - 1];
        cases.push({
          name: [...here, `[${test.projectName}]`, spec.title].join(' > '),
          status: test.status === 'expected' ? 'passed' : (last?.status ?? test.status),
          failures: results.flatMap((r: any) => (r.errors ?? []).map((e: any) => e.message ?? String(e))),
        });
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  for (const error of report.errors ?? []) {
    cases.push({ name: 'the run (outside any test)', status: 'failed', failures: [error.message ?? String(error)] });
  }
  return cases;
}

/**
 * The environment a command in the project gets: this one without what Vitest sets for its own tests
 * (NODE_ENV=test would make `vite build` a development build, VITEST_* would confuse a nested Vitest),
 * as in a user's CI (`CI=true`), plus `extra`.
 */
export function consumerEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(VITEST|NODE_ENV$|TEST$|TINYPOOL)/.test(key)),
  );
  return { ...env, CI: 'true', FORCE_COLOR: '0', ...extra };
}

/** A child run: its cases, its exit, its seconds. */
export interface ChildRun {
  readonly cases: readonly ChildCase[];
  readonly result: RunResult;
  readonly seconds: number;
}

/** Runs a test runner in the project and reads the cases of the report it writes to `report`. */
export async function runChild(
  project: ConsumerProject,
  command: string[],
  report: { path: string; read: (path: string) => ChildCase[] },
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ChildRun> {
  rmSync(report.path, { force: true });
  const started = performance.now();
  const [program, ...args] = command;
  const result = await run(program!, args, {
    cwd: project.dir,
    env: consumerEnv(options.env),
    timeoutMs: options.timeoutMs ?? 300_000,
  });
  const seconds = (performance.now() - started) / 1000;
  let cases: ChildCase[];
  try {
    cases = report.read(report.path);
  } catch (error) {
    const output = `${result.stdout}\n${result.stderr}`.slice(-4000);
    cases = [{ name: 'the run wrote no readable report', status: 'failed', failures: [String(error), output] }];
  }
  return { cases, result, seconds };
}

/**
 * One vitest test per case of the child run, passing only if the case passed (a skipped or pending
 * case fails here: nothing is left behind silently), and one that the run exited 0 with `expected`
 * cases, so a case lost from the child's files is noticed.
 */
export function registerChildCases(label: string, child: ChildRun, expected: number): void {
  for (const c of child.cases) {
    it(`${label}: ${c.name}`, () => {
      if (c.status !== 'passed') throw new Error(`${c.status}\n${c.failures.join('\n')}`);
    });
  }
  it(`${label}: the run exits 0 after ${expected} cases`, () => {
    const output = `${child.result.stdout}\n${child.result.stderr}`.slice(-4000);
    if (child.cases.length !== expected) {
      throw new Error(`${child.cases.length} cases, ${expected} expected\n${output}`);
    }
    if (child.result.status !== 0) throw new Error(`exited ${child.result.status ?? child.result.signal}\n${output}`);
  });
}
