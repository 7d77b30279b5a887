// The packages as a user gets them: `npm pack` each built package, install the four tarballs into a
// fresh project outside the repository (no workspace links), and use them there: import and require,
// TypeScript with node16 and bundler resolution, a Vite build in Chromium with the MSW worker, the
// server's CLI (in memory, and on PostgreSQL through its optional peer, the PostgreSQL store), and the
// client's error guards across its ESM and CJS copies. The server without that peer: server-alone.test.ts.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, extname, join, normalize, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  freePort,
  installInto,
  kib,
  npmEnv,
  packedTarballs,
  publishedPackages,
  readJson,
  repoRoot,
  run,
  runOk,
  type PackResult,
  scratchDirectory,
} from './helpers.js';
import { chromiumExecutable, launchChromium } from '../contract/browser/chromium.js';
import { openTestDatabase } from '../support/postgres.js';
import { createPlant, startCli } from './server-cli.js';

// Every child process below has its own bound; the tests get room for them on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

// The consumer installs the same versions the repository tests with, so npm finds them in its cache.
const installedVersion = (name: string) => readJson(join(repoRoot, 'node_modules', name, 'package.json')).version;
const registryDeps = ['msw', 'typescript', 'vite', '@types/node'].map((name) => `${name}@${installedVersion(name)}`);

const work = scratchDirectory('plant-store-consumer-');
const app = join(work, 'app');
const packs = new Map<string, PackResult>();

function write(relative: string, content: string): string {
  const path = join(app, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

/** `node <file>` in the consumer project; returns stdout, fails with stdout and stderr. */
async function node(file: string, args: string[] = [], timeoutMs = 30_000): Promise<string> {
  return (await runOk(process.execPath, [file, ...args], { cwd: app, timeoutMs })).stdout;
}

beforeAll(async () => {
  for (const packed of await packedTarballs(join(work, 'tarballs'))) packs.set(packed.name, packed);

  mkdirSync(app, { recursive: true });
  write('package.json', JSON.stringify({ name: 'plant-store-consumer', private: true, type: 'module' }, null, 2));
  await installInto(app, [...[...packs.values()].map((p) => p.tarball), ...registryDeps]);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published files', () => {
  const allowed = /^(dist\/.+|package\.json|README(\.md)?|LICEN[CS]E(\.md|\.txt)?|CHANGELOG\.md)$/i;

  it.each(publishedPackages)('$name holds only dist, package.json, README, LICENSE and CHANGELOG', ({ name }) => {
    const { files } = packs.get(name)!;
    const paths = files.map((f) => f.path);
    expect(paths.filter((p) => !allowed.test(p))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(src|test|tests|__tests__)\/|\.(test|spec)(-d)?\.[cm]?[jt]sx?$/.test(p))).toEqual(
      [],
    );
    expect(paths.filter((p) => p.endsWith('.tsbuildinfo'))).toEqual([]);
  });

  it.each(publishedPackages)('$name ships no source map that points at a file it does not ship', ({ name }) => {
    const installed = join(app, 'node_modules', name);
    const { files } = packs.get(name)!;
    const shipped = new Set(files.map((f) => f.path));
    const dangling: string[] = [];
    for (const map of files.filter((f) => f.path.endsWith('.map'))) {
      const { sources = [], sourcesContent = [] } = readJson(join(installed, map.path));
      sources.forEach((source: string, i: number) => {
        const target = posix.normalize(posix.join(posix.dirname(map.path), source));
        if (!shipped.has(target) && typeof sourcesContent[i] !== 'string') dangling.push(`${map.path} -> ${source}`);
      });
    }
    for (const file of files.filter((f) => /\.[cm]?js$|\.d\.[cm]?ts$/.test(f.path))) {
      const text = readFileSync(join(installed, file.path), 'utf8');
      const ref = /\/\/# sourceMappingURL=(?!data:)(\S+)\s*$/.exec(text)?.[1];
      if (ref && !shipped.has(posix.normalize(posix.join(posix.dirname(file.path), ref)))) {
        dangling.push(`${file.path} -> ${ref}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it('prints the tarball sizes', () => {
    const rows = [...packs.values()].map(
      (p) =>
        `  ${p.name.padEnd(22)} ${kib(p.size).padStart(10)} packed ${kib(p.unpackedSize).padStart(10)} unpacked ${String(p.files.length).padStart(3)} files`,
    );
    console.log(`tarballs:\n${rows.join('\n')}`);
    for (const p of packs.values()) expect(p.size).toBeGreaterThan(0);
  });
});

describe('loading the installed packages', () => {
  it(`installs with every dependency and peer range satisfied (msw ${installedVersion('msw')} as the peer)`, async () => {
    const result = await run('npm', ['ls', '--all', '--json'], { cwd: app, env: npmEnv, timeoutMs: 60_000 });
    const tree = JSON.parse(result.stdout);
    expect(tree.problems ?? [], result.stderr).toEqual([]);
    expect(result.status).toBe(0);
    expect(readJson(join(app, 'node_modules/@plant-store/msw/package.json')).peerDependencies.msw).toMatch(/^\^2\./);
    expect(tree.dependencies.msw.version).toBe(installedVersion('msw'));
    expect(tree.dependencies['@plant-store/server'].dependencies['@plant-store/core'].version).toBe(
      readJson(join(app, 'node_modules/@plant-store/core/package.json')).version,
    );
  });

  it.each(publishedPackages)('$name loads with import and with require, with the same exports', async ({ name }) => {
    const esm = await runOk(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(name)}); console.log(JSON.stringify(Object.keys(m).sort()))`,
      ],
      { cwd: app, timeoutMs: 30_000 },
    );
    const cjs = await runOk(
      process.execPath,
      [
        '--input-type=commonjs',
        '-e',
        `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(name)})).sort()))`,
      ],
      { cwd: app, timeoutMs: 30_000 },
    );
    const esmNames = JSON.parse(esm.stdout);
    expect(esmNames.length).toBeGreaterThan(0);
    expect(JSON.parse(cjs.stdout)).toEqual(esmNames);
  });

  it("an error thrown by either copy of the client (ESM, CJS) is recognised by the other copy's guards", async () => {
    write(
      'dual.mjs',
      `
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import * as esm from '@plant-store/client';
const cjs = createRequire(import.meta.url)('@plant-store/client');

// Answers every request as the service answers an unknown token.
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="plant-store", error="invalid_token"' });
  res.end(JSON.stringify({ error: 40102, message: 'the bearer token is not accepted' }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = 'http://127.0.0.1:' + server.address().port;

async function thrownBy(copy) {
  try {
    await copy.createPlant('wrong-token', { id: 1, name: 'Fern' }, { baseUrl });
  } catch (error) {
    return error;
  }
  throw new Error('createPlant did not throw');
}
const fromEsm = await thrownBy(esm);
const fromCjs = await thrownBy(cjs);
server.close();
console.log(JSON.stringify({
  twoCopies: esm.PlantStoreError !== cjs.PlantStoreError,
  esmInstanceOfCjs: fromEsm instanceof cjs.PlantStoreError,
  cjsGuardOnEsm: cjs.PlantStoreError.is(fromEsm),
  cjsApiGuardOnEsm: cjs.PlantStoreApiError.is(fromEsm),
  esmGuardOnCjs: esm.PlantStoreError.is(fromCjs),
  esmApiGuardOnCjs: esm.PlantStoreApiError.is(fromCjs),
  names: [fromEsm.name, fromCjs.name],
  messages: [fromEsm.message, fromCjs.message].map((m) => m.includes('the bearer token is not accepted')),
  statuses: [fromEsm.status, fromCjs.status],
  codes: [fromEsm.code, fromCjs.code],
  notAnError: esm.PlantStoreError.is(new Error('x')) || cjs.PlantStoreError.is({}),
}));
`,
    );
    expect(JSON.parse(await node('dual.mjs'))).toEqual({
      twoCopies: true,
      esmInstanceOfCjs: false,
      cjsGuardOnEsm: true,
      cjsApiGuardOnEsm: true,
      esmGuardOnCjs: true,
      esmApiGuardOnCjs: true,
      names: ['PlantStoreApiError', 'PlantStoreApiError'],
      messages: [true, true],
      statuses: [401, 401],
      codes: [40102, 40102],
      notAnError: false,
    });
  });
});

describe('a TypeScript consumer', () => {
  const clientCall = `
import { createPlant, PlantStoreError, type Plant } from '@plant-store/client';

export async function plant(): Promise<Plant | undefined> {
  try {
    const created: Plant = await createPlant('token', { id: 9007199254740993n, name: 'Fern', tag: 'green' });
    const name: string = created.name;
    void name;
    return await createPlant('token', { id: 1, name: 'Ivy' }, { baseUrl: 'http://127.0.0.1:4010' });
  } catch (error) {
    if (PlantStoreError.is(error)) return undefined;
    throw error;
  }
}
`;
  const otherPackages = `
import { createPlantStoreApp, createMemoryStore } from '@plant-store/core';
import type * as server from '@plant-store/server';
export const app = createPlantStoreApp({ tokens: ['t'], store: createMemoryStore() });
export type Server = typeof server;
`;
  const mswCall = `
import { createPlantStoreHandlers } from '@plant-store/msw';
export const mocks = createPlantStoreHandlers({ baseUrl: 'http://127.0.0.1:4010', tokens: ['t'] });
export const first = mocks.handlers[0];
`;
  const badCalls = {
    'string-id': `import { createPlant } from '@plant-store/client';\nvoid createPlant('token', { id: '1', name: 'Fern' });\n`,
    'missing-name': `import { createPlant } from '@plant-store/client';\nvoid createPlant('token', { id: 1 });\n`,
  };
  const modes = {
    node16: { module: 'node16', moduleResolution: 'node16', ext: 'mts' },
    bundler: { module: 'esnext', moduleResolution: 'bundler', ext: 'ts' },
  } as const;
  const compilerOptions = (mode: keyof typeof modes) => ({
    module: modes[mode].module,
    moduleResolution: modes[mode].moduleResolution,
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  });
  const tsc = (project: string) =>
    run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'], {
      cwd: app,
      timeoutMs: 120_000,
    });

  // One tsc run per resolution over the correct calls and the wrong ones together (each run loads
  // every package's types afresh, the longest part of it): the correct files must have no error,
  // the wrong ones exactly theirs.
  it.each(Object.keys(modes) as (keyof typeof modes)[])(
    "compiles correct calls and refuses a string id and a missing name with %s resolution against every package's types",
    async (mode) => {
      const dir = `ts-${mode}`;
      const ext = modes[mode].ext;
      const files = [clientCall, otherPackages, mswCall].map((source, i) => write(`${dir}/esm-${i}.${ext}`, source));
      if (mode === 'node16') {
        // CommonJS TypeScript files resolve the "require" condition and the .d.cts types. (msw's own types
        // fail in CommonJS files unless skipLibCheck is on, msw 2.15 imports ESM-only rettime, so
        // @plant-store/msw is checked from CommonJS in its own project below.)
        files.push(...[clientCall, otherPackages].map((source, i) => write(`${dir}/cjs-${i}.cts`, source)));
        const cjsMsw = write(`${dir}-cjs-msw/msw.cts`, mswCall);
        write(
          `${dir}-cjs-msw/tsconfig.json`,
          JSON.stringify(
            { compilerOptions: { ...compilerOptions(mode), skipLibCheck: true }, files: [cjsMsw] },
            null,
            2,
          ),
        );
        const cjs = await tsc(join(app, `${dir}-cjs-msw`));
        expect(cjs.stdout + cjs.stderr).toBe('');
        expect(cjs.status).toBe(0);
      }
      files.push(...Object.entries(badCalls).map(([name, source]) => write(`${dir}/${name}.${ext}`, source)));
      write(`${dir}/tsconfig.json`, JSON.stringify({ compilerOptions: compilerOptions(mode), files }, null, 2));
      const result = await tsc(join(app, dir));
      expect(result.stderr).toBe('');
      expect(result.status).not.toBe(0);
      // One block per error: its line, then tsc's indented elaboration ("Property 'name' is missing...").
      const errors = result.stdout.split(/\n(?=\S)/).filter((block) => / error TS\d+:/.test(block));
      // Exactly one error per wrong call, on its second line, and nothing else (none in the correct files).
      expect(errors, result.stdout).toHaveLength(2);
      const stringId = errors.find((block) => block.startsWith(`${dir}/string-id.${ext}(2,`));
      const missingName = errors.find((block) => block.startsWith(`${dir}/missing-name.${ext}(2,`));
      expect(stringId).toMatch(/'string' is not assignable/);
      expect(missingName).toMatch(/Property 'name' is missing/);
    },
    150_000,
  );
});

describe("the server's CLI", () => {
  it('answers --help through npx', async () => {
    const result = await runOk('npx', ['--no-install', 'plant-store-server', '--help'], {
      cwd: app,
      env: npmEnv,
      timeoutMs: 30_000,
    });
    expect(result.stdout).toMatch(/--port/);
    expect(result.stdout).toMatch(/--token/);
  });

  it('serves creates from the installed client (ESM and CommonJS), and stops with 0 on SIGTERM', async () => {
    const port = await freePort();
    const server = await startCli(app, ['--port', String(port), '--token', 't']);
    expect(server.url).toBe(`http://127.0.0.1:${port}`);

    write(
      'create.mjs',
      `
import { createPlant } from '@plant-store/client';
const [baseUrl, token] = process.argv.slice(2);
const plant = await createPlant(token, { id: 9007199254740993n, name: 'Monstera', tag: 'tropical' }, { baseUrl });
console.log(JSON.stringify(plant));
`,
    );
    write(
      'create.cjs',
      `
const { createPlant } = require('@plant-store/client');
const [baseUrl, token] = process.argv.slice(2);
createPlant(token, { id: 2, name: 'Fern' }, { baseUrl }).then(
  (plant) => console.log(JSON.stringify(plant)),
  (error) => { console.error(error); process.exitCode = 1; },
);
`,
    );
    expect(JSON.parse(await node('create.mjs', [server.url, 't']))).toEqual({ name: 'Monstera', tag: 'tropical' });
    expect(JSON.parse(await node('create.cjs', [server.url, 't']))).toEqual({ name: 'Fern' });
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it('serves from PostgreSQL with --database through the installed optional peer @plant-store/store-postgres', async () => {
    const db = await openTestDatabase();
    try {
      const table = db.table();
      const where = ['--database', db.url, '--database-schema', db.schema, '--database-table', table];
      const server = await startCli(app, ['--port', '0', '--token', 't', ...where]);
      expect(server.output()).toContain(`table "${db.schema}"."${table}"`);
      expect(await createPlant(server.url, 't', { id: 7, name: 'Fern' })).toEqual([200, { name: 'Fern' }]);
      expect(await db.query(`SELECT id::text, name FROM "${db.schema}"."${table}"`)).toEqual([
        { id: '7', name: 'Fern' },
      ]);
      expect(await server.stop()).toBe(0);
    } finally {
      await db.close();
    }
  }, 90_000);
});

describe('a Vite app in Chromium', () => {
  let staticServer: Server | undefined;
  afterAll(() => new Promise<void>((resolve) => (staticServer ? staticServer.close(() => resolve()) : resolve())));

  it('creates a plant with the client against the MSW worker and shows it', async () => {
    // First, so a missing browser fails in seconds rather than after the Vite build.
    await chromiumExecutable();
    const web = join(app, 'web');
    write(
      'web/index.html',
      `<!doctype html>
<html><head><meta charset="utf-8"><title>Plant Store consumer</title></head>
<body><output id="out">pending</output><script type="module" src="./main.ts"></script></body></html>
`,
    );
    write(
      'web/main.ts',
      `import { setupWorker } from 'msw/browser';
import { createPlantStoreHandlers } from '@plant-store/msw';
import { createPlant } from '@plant-store/client';

const out = document.getElementById('out')!;

async function main(): Promise<void> {
  const mocks = createPlantStoreHandlers({ baseUrl: '/api' });
  const worker = setupWorker(...mocks.handlers);
  await worker.start({ onUnhandledRequest: 'error', quiet: true });
  const plant = await createPlant('any-token', { id: 9007199254740993n, name: 'Monstera', tag: 'tropical' }, {
    baseUrl: new URL('/api', location.href).href,
  });
  out.textContent = JSON.stringify(plant);
  out.dataset.state = 'done';
}

main().catch((error: unknown) => {
  out.textContent = String(error);
  out.dataset.state = 'failed';
});
`,
    );
    await runOk(join(app, 'node_modules/.bin/msw'), ['init', join(web, 'public'), '--no-save'], {
      cwd: app,
      timeoutMs: 30_000,
    });
    await runOk(
      process.execPath,
      [
        join(app, 'node_modules/vite/bin/vite.js'),
        'build',
        web,
        '--outDir',
        join(web, 'dist'),
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ],
      { cwd: app, timeoutMs: 120_000 },
    );
    const dist = join(web, 'dist');
    expect(existsSync(join(dist, 'mockServiceWorker.js'))).toBe(true);

    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
    staticServer = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const file = join(dist, path === '/' ? 'index.html' : path);
      if (!file.startsWith(dist) || !existsSync(file) || (path.endsWith('/') && path !== '/')) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(readFileSync(file));
    });
    await new Promise<void>((resolve) => staticServer!.listen(0, '127.0.0.1', resolve));
    const { port } = staticServer.address() as { port: number };

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const consoleLines: string[] = [];
      page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
      await page.goto(`http://127.0.0.1:${port}/`, { timeout: 30_000 });
      const out = page.locator('#out[data-state]');
      await out.waitFor({ timeout: 30_000 });
      expect(await out.getAttribute('data-state'), consoleLines.join('\n')).toBe('done');
      expect(JSON.parse((await out.textContent()) ?? '')).toEqual({ name: 'Monstera', tag: 'tropical' });
    } finally {
      await browser.close();
    }
  }, 240_000);
});
