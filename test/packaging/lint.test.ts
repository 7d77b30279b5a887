// publint and "Are the types wrong?" on every published package, as npm would pack it (attw reads the
// run's tarballs, packedTarballs(); only the deliberately broken copy below is packed here).
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { problemKindInfo } from '@arethetypeswrong/core/problems';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, pack, packedTarballs, publishedPackages, readJson } from './helpers.js';

const tarballDir = mkdtempSync(join(tmpdir(), 'plant-store-lint-'));
afterAll(() => rmSync(tarballDir, { recursive: true, force: true }));

async function publintProblems(pkgDir: string): Promise<string[]> {
  const { messages } = await publint({ pkgDir, pack: 'npm', level: 'suggestion', strict: false });
  const manifest = readJson(join(pkgDir, 'package.json'));
  const describeMessage = (m: (typeof messages)[number]) =>
    `${m.type}: ${formatMessage(m, manifest, { color: false }) ?? m.code}`;
  const suggestions = messages.filter((m) => m.type === 'suggestion').map(describeMessage);
  if (suggestions.length > 0) console.log(`publint suggestions for ${manifest.name}:\n  ${suggestions.join('\n  ')}`);
  return messages.filter((m) => m.type !== 'suggestion').map(describeMessage);
}

async function attwProblems(tarball: string): Promise<string[]> {
  const result = await checkPackage(createPackageFromTarballData(new Uint8Array(readFileSync(tarball))));
  if (result.types === false) return ['the package ships no types'];
  if (!Object.keys(result.entrypoints).includes('.')) return ['no "." entrypoint was analysed'];
  return result.problems.map((problem) => {
    const where = 'entrypoint' in problem ? ` at "${problem.entrypoint}" (${problem.resolutionKind})` : '';
    return `${problem.kind}${where}: ${problemKindInfo[problem.kind].description}`;
  });
}

describe.each(publishedPackages)('$name', (pkg) => {
  it('passes publint with no errors and no warnings', async () => {
    assertBuilt(pkg);
    expect(await publintProblems(pkg.dir)).toEqual([]);
  });

  it('has types that resolve correctly in node10, node16 (CJS and ESM) and bundler resolution', async () => {
    const { tarball } = (await packedTarballs(join(tarballDir, 'packed'))).find((p) => p.name === pkg.name)!;
    expect(await attwProblems(tarball)).toEqual([]);
  });
});

describe('the packaging checks themselves', () => {
  it('report a package whose CommonJS types are missing and whose main points nowhere', async () => {
    const core = publishedPackages.find((p) => p.name === '@plant-store/core')!;
    assertBuilt(core);
    const broken = join(tarballDir, 'broken-core');
    cpSync(join(core.dir, 'package.json'), join(broken, 'package.json'));
    cpSync(join(core.dir, 'dist'), join(broken, 'dist'), { recursive: true });
    rmSync(join(broken, 'dist/index.d.cts'));
    const manifest = readJson(join(broken, 'package.json'));
    writeFileSync(join(broken, 'package.json'), JSON.stringify({ ...manifest, main: './dist/missing.cjs' }, null, 2));

    expect((await publintProblems(broken)).join('\n')).toMatch(/missing\.cjs|index\.d\.cts/);
    const { tarball } = await pack({ name: manifest.name, dir: broken }, tarballDir);
    expect((await attwProblems(tarball)).join('\n')).toMatch(/node16-cjs/);
  });
});
