// The server as a user without PostgreSQL installs it: the packed server in a fresh project with its
// dependencies only (the core and the file store from their tarballs, the rest from the registry), so
// neither @plant-store/store-postgres, its optional peer, nor the `pg` driver is there. The memory and
// file stores serve; `--database`, its variable, `--workers` (which needs it) and `import` name the
// package to install and exit 2 before anything starts. With the peer installed: tarballs.test.ts.
// Nor is @opentelemetry/sdk-node, the optional peer of `--otel`: the flag and its variable name it.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { installInto, npmEnv, packedTarballs, run, runOk, scratchDirectory } from './helpers.js';
import { createPlant, runCli, startCli } from './server-cli.js';

// Every child process below has its own bound; the tests get room for them on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

const work = scratchDirectory('plant-store-server-alone-');
const app = join(work, 'app');
const SERVER_AND_DEPENDENCIES = ['@plant-store/core', '@plant-store/store-file', '@plant-store/server'];
const INSTALL_MESSAGE = 'npm install @plant-store/store-postgres';
const OTEL_INSTALL_MESSAGE = 'npm install @opentelemetry/sdk-node @opentelemetry/api';
// Never reached: the command stops before it would connect.
const DATABASE_URL = 'postgres://plants:secret@127.0.0.1:1/plants';

beforeAll(async () => {
  const tarballs = (await packedTarballs(join(work, 'tarballs')))
    .filter((packed) => SERVER_AND_DEPENDENCIES.includes(packed.name))
    .map((packed) => packed.tarball);
  expect(tarballs).toHaveLength(SERVER_AND_DEPENDENCIES.length);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'plant-store-server-alone', private: true }));
  await installInto(app, tarballs);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

it('installs neither the PostgreSQL store nor a database driver, and npm finds nothing missing', async () => {
  expect(existsSync(join(app, 'node_modules/@plant-store/server/package.json'))).toBe(true);
  expect(existsSync(join(app, 'node_modules/@plant-store/store-postgres'))).toBe(false);
  expect(existsSync(join(app, 'node_modules/pg'))).toBe(false);
  const result = await run('npm', ['ls', '--all', '--json'], { cwd: app, env: npmEnv, timeoutMs: 60_000 });
  expect(JSON.parse(result.stdout).problems ?? [], result.stderr).toEqual([]);
});

it('serves a create from the memory store and from a --data file, and stops with 0 on SIGTERM', async () => {
  for (const store of [[], ['--data', join(work, 'plants.log')]]) {
    const server = await startCli(app, ['--port', '0', '--token', 't', ...store]);
    expect(await createPlant(server.url, 't', { id: 1, name: 'Fern' })).toEqual([200, { name: 'Fern' }]);
    expect(await server.stop()).toBe(0);
  }
  expect(existsSync(join(work, 'plants.log'))).toBe(true);
});

it.each([
  ['--database', ['--port', '0', '--database', DATABASE_URL], {}],
  ['PLANT_STORE_DATABASE_URL', ['--port', '0'], { PLANT_STORE_DATABASE_URL: DATABASE_URL }],
  ['--workers with --database', ['--port', '0', '--workers', '2', '--database', DATABASE_URL], {}],
  ['import', ['import', '--data', join(work, 'plants.log'), '--database', DATABASE_URL], {}],
])('exits 2 on %s, naming the command that installs the PostgreSQL store', async (_, args, env) => {
  const result = await runCli(app, args, { ...process.env, ...env });
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr).toContain(INSTALL_MESSAGE);
  expect(result.stdout).not.toContain('listening');
});

it.each([
  ['--otel', ['--port', '0', '--token', 't', '--otel'], {}],
  ['PLANT_STORE_OTEL=1', ['--port', '0', '--token', 't'], { PLANT_STORE_OTEL: '1' }],
])('exits 2 on %s, naming the command that installs the OpenTelemetry SDK', async (_, args, env) => {
  expect(existsSync(join(app, 'node_modules/@opentelemetry/sdk-node'))).toBe(false);
  const result = await runCli(app, args, { ...process.env, ...env });
  expect(result.status, result.stderr).toBe(2);
  expect(result.stderr).toContain(OTEL_INSTALL_MESSAGE);
  expect(result.stdout).not.toContain('listening');
});

it('starts from the library (ESM and CommonJS) with no database driver installed', async () => {
  const serve = (load: string) => `
${load}
startPlantStoreServer({ port: 0, tokens: ['t'] }).then(async (server) => {
  const response = await fetch(server.url + '/plants', {
    method: 'POST',
    headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
    body: JSON.stringify({ id: 3, name: 'Ivy' }),
  });
  console.log(response.status, JSON.stringify(await response.json()));
  await server.close();
});
`;
  for (const [type, load] of [
    ['module', "import { startPlantStoreServer } from '@plant-store/server';"],
    ['commonjs', "const { startPlantStoreServer } = require('@plant-store/server');"],
  ] as const) {
    const { stdout } = await runOk(process.execPath, [`--input-type=${type}`, '-e', serve(load)], {
      cwd: app,
      timeoutMs: 30_000,
    });
    expect(stdout.trim()).toBe('200 {"name":"Ivy"}');
  }
});
