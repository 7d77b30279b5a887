// Shared by the packaging tests: the published packages, bounded child processes, npm pack.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { startedOnce } from '../support/once-per-run.js';
import type {} from './tarballs-setup.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface PublishedPackage {
  name: string;
  dir: string;
}

// PACKAGING_SNAPSHOT=<dir> points the tests at copies (<dir>/core/{package.json,dist}, ...) instead of
// packages/*: for working on these tests while others rebuild the packages. `npm test` never sets it.
const packagesRoot = process.env.PACKAGING_SNAPSHOT
  ? resolve(process.env.PACKAGING_SNAPSHOT)
  : join(repoRoot, 'packages');

export const publishedPackages: PublishedPackage[] = [
  'core',
  'store-file',
  'store-postgres',
  'client',
  'server',
  'msw',
  'query',
].map((short) => ({
  name: `@plant-store/${short}`,
  dir: join(packagesRoot, short),
}));

export function readJson<T = any>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Every file an export condition or `bin` of the package points at must exist: the package is built. */
export function assertBuilt(pkg: PublishedPackage): void {
  const manifest = readJson(join(pkg.dir, 'package.json'));
  const targets: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest.exports);
  walk(manifest.bin);
  const missing = targets.filter((t) => t.startsWith('./dist/') && !existsSync(join(pkg.dir, t)));
  if (missing.length > 0) {
    throw new Error(`${pkg.name} is not built (missing ${missing.join(', ')}): run \`npm run build\` first`);
  }
}

/** Where scratch projects go when the machine has a RAM disk: Linux's shared-memory file system. */
const RAM_DISK = '/dev/shm';
/** What it must have free to hold the run's consumer projects at once. */
const RAM_DISK_ROOM = 4 * 1024 ** 3;

/** The folder scratch projects are made in: the RAM disk when it is there, writable and roomy, else the temporary directory. */
function scratchParent(): string {
  try {
    accessSync(RAM_DISK, constants.W_OK);
    const { bavail, bsize } = statfsSync(RAM_DISK);
    if (bavail * bsize >= RAM_DISK_ROOM) return RAM_DISK;
  } catch {
    // No RAM disk here.
  }
  return tmpdir();
}

/**
 * A new empty folder for a consumer project, a copy of the repository or the run's tarballs. An install
 * writes tens of thousands of small files, and on a disk the file system's journal is then much of the
 * install's time: where the machine has a RAM disk (/dev/shm, Linux) the folder is made there. The
 * caller removes it.
 */
export function scratchDirectory(prefix: string): string {
  return mkdtempSync(join(scratchParent(), prefix));
}

export interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL, whole process group) after this many milliseconds. */
  timeoutMs?: number;
  input?: string;
}

/** Runs a command to completion, never longer than `timeoutMs`; output is collected, not inherited. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const { cwd = repoRoot, env = process.env, timeoutMs = 120_000, input } = options;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolvePromise({ status, signal, stdout, stderr });
    });
    // A child may exit without reading its input (EPIPE): its exit status is what callers judge,
    // so a closed pipe must not surface as an uncaught error of the test run.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

export async function runOk(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/** A value the run's global setup (tarballs-setup.ts) provides; undefined outside a vitest run that has it. */
function provided<K extends 'plantStoreTarballDir' | 'plantStoreNpmCache'>(key: K) {
  try {
    return inject(key);
  } catch {
    return undefined; // not in a test file (the global setup itself, a script)
  }
}

const usableDirectory = (dir: string): boolean => {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The npm cache the packaging tests use: npm's configured one (`npm config get cache`, the cache
 * `npm ci` filled), so a consumer install finds there the registry packages the repository installed and
 * the run downloads each package once at most. npm derives its default from HOME, and with an empty HOME
 * it names `<cwd>/~/.npm`, a cache of each consumer project's own: a path that is not absolute, passes
 * through a `~` folder or cannot be written is replaced by one folder in the system's temporary
 * directory, shared in the same way.
 */
export function resolveNpmCache(): string {
  // Asked from a scratch folder (the repository's own .npmrc still counts, through --prefix): npm creates
  // the cache it names, and with an empty HOME that is `~/.npm` under the folder it runs in.
  const scratch = mkdtempSync(join(tmpdir(), 'plant-store-npm-config-'));
  let configured = '';
  try {
    configured = execFileSync('npm', ['config', 'get', 'cache', '--prefix', repoRoot], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // npm could not tell: the stand-in below.
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (isAbsolute(configured) && !configured.split(sep).includes('~') && usableDirectory(configured)) return configured;
  const standIn = join(tmpdir(), 'plant-store-npm-cache');
  mkdirSync(standIn, { recursive: true });
  return standIn;
}

/**
 * The quiet environment every npm call gets: no update notice, no funding or audit chatter, and one
 * npm cache for the whole run (the global setup resolves it once; see `resolveNpmCache`). The cache is
 * named explicitly so that every child agrees on it whatever its HOME, and no test sets one of its own.
 */
export const npmEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NO_UPDATE_NOTIFIER: '1',
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_loglevel: 'error',
  npm_config_cache: provided('plantStoreNpmCache') ?? resolveNpmCache(),
};

/**
 * `npm install` in a consumer project as a user would run it, tarballs and registry specs in one call
 * (so npm takes every `@plant-store/*` dependency from the tarballs): no lockfile, no install scripts.
 */
export async function installInto(cwd: string, specs: string[], timeoutMs = 240_000): Promise<void> {
  await runOk(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', ...specs],
    { cwd, env: npmEnv, timeoutMs },
  );
}

export interface PackResult {
  name: string;
  version: string;
  filename: string;
  /** Absolute path of the tarball. */
  tarball: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/** `npm pack` of one built package into `destination` (never into the package's own directory). */
export async function pack(pkg: PublishedPackage, destination: string): Promise<PackResult> {
  const { stdout } = await runOk('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], {
    cwd: pkg.dir,
    env: npmEnv,
    timeoutMs: 60_000,
  });
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  return { ...result, tarball: join(destination, result.filename) };
}

/** `npm pack` of every published package into `destination`, all at once; each package must be built. */
export async function packAll(destination: string): Promise<PackResult[]> {
  publishedPackages.forEach(assertBuilt);
  return Promise.all(publishedPackages.map((pkg) => pack(pkg, destination)));
}

const ownTarballs = new Map<string, Promise<PackResult[]>>();

/**
 * Every published package as `npm pack` makes it, in `publishedPackages` order: packed once for the run
 * (in the directory of tarballs-setup.ts, by the first file that asks) and shared by every test file.
 * Without that setup, they are packed into `fallbackDir`, a folder of the caller's that it removes with
 * its other files (once per folder and process). The tarballs are shared: install, read or unpack them,
 * never change or move them.
 */
export async function packedTarballs(fallbackDir: string): Promise<PackResult[]> {
  const runDir = provided('plantStoreTarballDir');
  if (runDir)
    return startedOnce(runDir, 'tarballs', 'npm pack of the packages', () => packAll(join(runDir, 'tarballs')));
  let packing = ownTarballs.get(fallbackDir);
  if (!packing) {
    mkdirSync(fallbackDir, { recursive: true });
    packing = packAll(fallbackDir);
    ownTarballs.set(fallbackDir, packing);
  }
  return packing;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePromise(port));
    });
  });
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
