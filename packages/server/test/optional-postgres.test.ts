// The PostgreSQL store is an optional peer of the server, loaded only for --database: when it is not
// installed, the CLI names the command that installs it (exit code 2) instead of a missing module's
// stack. The imports here are Node's own, from projects outside the repository, where the workspace's
// packages cannot be found. The CLI from the packed tarballs: test/packaging/server-alone.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { exitCodeOf } from '../src/internal/cli-lifecycle.js';
import { loadPostgresStore, MissingPackageError } from '../src/internal/open-store.js';

const projects: string[] = [];
afterAll(() => {
  for (const project of projects) rmSync(project, { recursive: true, force: true });
});

/** A folder outside the repository with these files in it. */
function project(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-optional-pg-'));
  projects.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** The package as an ES module of `dir` imports it, as the CLI's bundle does where it is installed. */
function importFrom(dir: string) {
  const file = join(dir, 'load.mjs');
  writeFileSync(file, "export * from '@plant-store/store-postgres';\n");
  return () => import(pathToFileURL(file).href);
}

/** The package as a CommonJS module of `dir` requires it. */
function requireFrom(dir: string) {
  const require = createRequire(join(dir, 'load.cjs'));
  return async () => require('@plant-store/store-postgres');
}

it('names the command that installs the package when it is not installed, for exit code 2', async () => {
  const dir = project();
  for (const load of [importFrom(dir), requireFrom(dir)]) {
    const error = await loadPostgresStore(load).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(MissingPackageError);
    expect((error as Error).message).toBe(
      '--database needs the PostgreSQL store, an optional peer of @plant-store/server that is not installed: npm install @plant-store/store-postgres',
    );
    expect(exitCodeOf(error)).toBe(2);
  }
});

it('passes on a failure of the installed package as it is, such as a dependency of its own that is missing', async () => {
  const dir = project({
    'node_modules/@plant-store/store-postgres/package.json': JSON.stringify({
      name: '@plant-store/store-postgres',
      type: 'module',
      exports: './index.js',
    }),
    'node_modules/@plant-store/store-postgres/index.js': "import 'pg';\nexport function createPostgresStore() {}\n",
  });
  const error = await loadPostgresStore(importFrom(dir)).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).not.toBeInstanceOf(MissingPackageError);
  expect(error).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND', message: expect.stringContaining("'pg'") });
  expect(exitCodeOf(error)).toBe(1);
});

it('loads the installed package when nothing else is given', async () => {
  const { createPostgresStore } = await loadPostgresStore();
  expect(typeof createPostgresStore).toBe('function');
});
