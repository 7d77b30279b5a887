// The release procedure, rehearsed in a throwaway copy of the repository: `npm run version` (changesets)
// and `changeset publish` against a local stand-in for the registry. Nothing is published, no network
// is used, and the repository itself is never touched.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, npmEnv, publishedPackages, readJson, repoRoot, runOk, scratchDirectory } from './helpers.js';
import { startRegistryStandIn, type RegistryStandIn } from './registry-stand-in.js';

const copy = scratchDirectory('plant-store-release-');
const pkgJson = (short: string) => join(copy, 'packages', short, 'package.json');
const shorts = publishedPackages.map((p) => p.name.replace('@plant-store/', ''));
// The identity git needs for commits and the tags `changeset publish` creates, set here: a user with an
// empty home (a fresh CI runner) has none.
const gitIdentity = {
  GIT_AUTHOR_NAME: 'release rehearsal',
  GIT_AUTHOR_EMAIL: 'rehearsal@invalid',
  GIT_COMMITTER_NAME: 'release rehearsal',
  GIT_COMMITTER_EMAIL: 'rehearsal@invalid',
};
const git = (...args: string[]) =>
  runOk('git', args, { cwd: copy, env: { ...process.env, ...gitIdentity }, timeoutMs: 30_000 });

let before: Record<string, any>;
let registry: RegistryStandIn | undefined;

beforeAll(async () => {
  publishedPackages.forEach(assertBuilt);
  const rootManifest = readJson(join(repoRoot, 'package.json'));
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(repoRoot, file), join(copy, file));
  cpSync(join(repoRoot, '.changeset'), join(copy, '.changeset'), { recursive: true });
  for (const workspace of rootManifest.workspaces as string[]) {
    mkdirSync(join(copy, workspace), { recursive: true });
    const published = publishedPackages.find((p) => `packages/${p.name.replace('@plant-store/', '')}` === workspace);
    const from = published?.dir ?? join(repoRoot, workspace);
    for (const entry of ['package.json', 'dist', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
      if (existsSync(join(from, entry))) cpSync(join(from, entry), join(copy, workspace, entry), { recursive: true });
    }
  }
  // The copy uses the repository's tools (changesets and its changelog module resolve from here).
  symlinkSync(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');

  // With no pending changeset (right after a release) the rehearsal brings its own patch changeset.
  const pending = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  if (pending.length === 0) {
    writeFileSync(
      join(copy, '.changeset', 'release-rehearsal.md'),
      `---\n${publishedPackages.map((p) => `"${p.name}": patch`).join('\n')}\n---\n\nRelease rehearsal.\n`,
    );
  }
  await git('init', '-q');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'release rehearsal base');
  before = Object.fromEntries(shorts.map((s) => [s, readJson(pkgJson(s))]));
}, 120_000);

afterAll(async () => {
  await registry?.close();
  rmSync(copy, { recursive: true, force: true });
});

describe('the release procedure', () => {
  it('npm run version gives every package one new version, a CHANGELOG and internal ranges on that version', async () => {
    await runOk('npm', ['run', 'version'], {
      cwd: copy,
      env: { ...npmEnv, npm_config_prefer_offline: 'true' },
      timeoutMs: 180_000,
    });
    const after = Object.fromEntries(shorts.map((s) => [s, readJson(pkgJson(s))]));
    const versions = new Set(shorts.map((s) => after[s].version));
    expect(versions.size, 'the fixed group keeps one version').toBe(1);
    const [version] = versions;
    expect(version).not.toBe(before.core.version);
    if (
      before.core.version === '0.0.0' &&
      readdirSync(join(repoRoot, '.changeset')).some((f) => f.startsWith('initial-release'))
    ) {
      expect(version).toBe('1.0.0');
    }

    for (const short of shorts) {
      const changelog = readFileSync(join(copy, 'packages', short, 'CHANGELOG.md'), 'utf8');
      expect(changelog).toContain(`# @plant-store/${short}\n`);
      expect(changelog).toContain(`## ${version}\n`);
      // Internal dependencies follow the release: a range that the new version satisfies.
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
        for (const [dep, range] of Object.entries<string>(after[short][field] ?? {})) {
          if (dep.startsWith('@plant-store/'))
            expect([`^${version}`, version], `${short} ${field} ${dep}`).toContain(range);
        }
      }
    }
    expect(after.server.dependencies['@plant-store/core']).toBeDefined();
    expect(after.msw.dependencies['@plant-store/core']).toBeDefined();

    // The changesets are consumed, and the lockfile knows the new versions.
    const left = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(left).toEqual([]);
    const lock = readJson(join(copy, 'package-lock.json'));
    for (const short of shorts) expect(lock.packages[`packages/${short}`].version).toBe(version);
  }, 200_000);

  it('changeset publish publishes the packages at that version, public, with their dist', async () => {
    const version = readJson(pkgJson('core')).version;
    registry = await startRegistryStandIn();
    const npmrc = join(copy, '.npmrc-rehearsal');
    const host = registry.url.replace(/^http:/, '');
    writeFileSync(npmrc, `registry=${registry.url}\n${host}:_authToken=rehearsal-token\n`);
    const { stdout, stderr } = await runOk(
      process.execPath,
      [join(repoRoot, 'node_modules/@changesets/cli/bin.js'), 'publish'],
      {
        cwd: copy,
        env: { ...npmEnv, ...gitIdentity, npm_config_registry: registry.url, npm_config_userconfig: npmrc },
        timeoutMs: 180_000,
      },
    );
    const byName = Object.fromEntries(registry.publications.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort(), `${stdout}\n${stderr}`).toEqual(publishedPackages.map((p) => p.name).sort());
    for (const p of registry.publications) {
      expect(p.version).toBe(version);
      expect(p.distTags).toEqual({ latest: version });
      expect(p.access).toBe('public');
      expect(p.files).toEqual(
        expect.arrayContaining([
          'package.json',
          'dist/index.js',
          'dist/index.cjs',
          'dist/index.d.ts',
          'dist/index.d.cts',
        ]),
      );
    }
    expect(byName['@plant-store/server']!.manifest.dependencies['@plant-store/core']).toBe(`^${version}`);
    expect(byName['@plant-store/msw']!.manifest.dependencies['@plant-store/core']).toBe(`^${version}`);
    expect(byName['@plant-store/server']!.files).toContain('dist/cli.js');

    // changesets tags each release in git.
    const tags = (await git('tag', '--list')).stdout.split('\n').filter(Boolean).sort();
    expect(tags).toEqual(publishedPackages.map((p) => `${p.name}@${version}`).sort());
  }, 200_000);
});
