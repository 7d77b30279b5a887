// `--otel`'s SDK is an optional peer of the server. The primary of --workers traces nothing: it only
// finds the package (loading it costs a process about a second of CPU, before any worker is forked),
// and names the command that installs it when it is not there. The resolutions here are Node's own,
// from a folder outside the repository, where the workspace's packages cannot be found.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { exitCodeOf } from '../src/internal/cli-lifecycle.js';
import { MissingPackageError } from '../src/internal/open-store.js';
import { findTracingSdk } from '../src/internal/tracing-sdk.js';

const outside = mkdtempSync(join(tmpdir(), 'plant-store-optional-otel-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** How an ES module of `dir` finds a package, as the CLI's bundle does where it is installed. */
async function resolverIn(dir: string): Promise<(specifier: string) => string> {
  const file = join(dir, 'find.mjs');
  writeFileSync(file, 'export const find = (specifier) => import.meta.resolve(specifier);\n');
  return ((await import(pathToFileURL(file).href)) as { find: (specifier: string) => string }).find;
}

const caught = (run: () => void): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

it('names the command that installs the SDK when it is not installed, for exit code 2', async () => {
  for (const resolve of [await resolverIn(outside), createRequire(join(outside, 'find.cjs')).resolve]) {
    const error = caught(() => findTracingSdk(resolve));
    expect(error).toBeInstanceOf(MissingPackageError);
    expect((error as Error).message).toBe(
      '--otel needs the OpenTelemetry SDK, an optional peer of @plant-store/server that is not installed: npm install @opentelemetry/sdk-node @opentelemetry/api',
    );
    expect(exitCodeOf(error)).toBe(2);
  }
});

it('passes on any other failure to find the SDK as it is', () => {
  const failure = Object.assign(new Error('EACCES: permission denied, open package.json'), { code: 'EACCES' });
  expect(
    caught(() =>
      findTracingSdk(() => {
        throw failure;
      }),
    ),
  ).toBe(failure);
});

it('finds the installed SDK', () => {
  expect(caught(() => findTracingSdk(createRequire(import.meta.url).resolve))).toBeUndefined();
});
