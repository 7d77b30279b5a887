// publint and "Are the types wrong?" on every published package, as npm would pack it.
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { problemKindInfo } from '@arethetypeswrong/core/problems';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, pack, publishedPackages, readJson } from './helpers.js';

const tarballDir = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
afterAll(() => rmSync(tarballDir, { recursive: true, force: true }));

describe.each(publishedPackages)('$name', (pkg) => {
  it('passes publint with no errors and no warnings', async () => {
    assertBuilt(pkg);
    const { messages } = await publint({ pkgDir: pkg.dir, pack: 'npm', level: 'suggestion', strict: false });
    const manifest = readJson(join(pkg.dir, 'package.json'));
    const describeMessage = (m: (typeof messages)[number]) =>
      `${m.type}: ${formatMessage(m, manifest, { color: false }) ?? m.code}`;
    const suggestions = messages.filter((m) => m.type === 'suggestion').map(describeMessage);
    if (suggestions.length > 0) console.log(`publint suggestions for ${pkg.name}:\n  ${suggestions.join('\n  ')}`);
    expect(messages.filter((m) => m.type !== 'suggestion').map(describeMessage)).toEqual([]);
  });

  it('has types that resolve correctly in node10, node16 (CJS and ESM) and bundler resolution', async () => {
    assertBuilt(pkg);
    const { tarball } = await pack(pkg, tarballDir);
    const result = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
    expect(result.types, `${pkg.name} ships no types`).not.toBe(false);
    if (result.types === false) return;
    expect(Object.keys(result.entrypoints)).toContain('.');
    const problems = result.problems.map((problem) => {
      const where = 'entrypoint' in problem ? ` at "${problem.entrypoint}" (${problem.resolutionKind})` : '';
      return `${problem.kind}${where}: ${problemKindInfo[problem.kind].description}`;
    });
    expect(problems).toEqual([]);
  });
});
