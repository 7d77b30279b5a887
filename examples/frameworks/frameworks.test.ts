// The framework recipes of docs/hosting.md, each run as a user runs it: the packages packed with
// `npm pack` and installed from their tarballs, with the frameworks from npm, into one fresh project
// outside the repository; each example started as a real process on 127.0.0.1, then the contract's
// create, replay and conflict cases, the real client (2^53+1, a conflict with its request id, a wrong
// token) and the app's own route beside the service.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPlant, ErrorCode, PlantStoreApiError } from '@plant-store/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cases, TOKEN } from '../../test/contract/cases.js';
import { differences, expectationProblems, runCase, withRequestId } from '../../test/contract/harness.js';
import { sendOverHttp } from '../../test/contract/http.js';
import { runOnCore } from '../../test/contract/reference.js';
import {
  freePort,
  installInto,
  npmEnv,
  packedTarballs,
  readJson,
  repoRoot,
  runOk,
  scratchDirectory,
} from '../../test/packaging/helpers.js';

const here = join(repoRoot, 'examples/frameworks');
// The consumer gets the versions the repository installs (examples/package.json), from npm's cache.
const versionOf = (name: string): string => readJson(join(repoRoot, 'node_modules', name, 'package.json')).version;

interface Framework {
  readonly name: string;
  /** The example's folder under examples/frameworks, copied into the consumer project. */
  readonly folder: string;
  /** Where it goes there (default: the same name); Next.js's `app/` is at the project's root, beside node_modules. */
  readonly into?: string;
  /** What npm installs for it, beside the tarballs. */
  readonly packages: readonly string[];
  /** The command that builds it first, if any, and the one that serves it on `port`. */
  readonly build?: readonly string[];
  readonly serve: (port: number) => readonly string[];
}

const next = (...args: string[]) => [join('node_modules', 'next', 'dist', 'bin', 'next'), ...args];
const frameworks: readonly Framework[] = [
  { name: 'Express', folder: 'express', packages: ['express'], serve: () => ['express/server.mjs'] },
  { name: 'Fastify', folder: 'fastify', packages: ['fastify'], serve: () => ['fastify/server.mjs'] },
  { name: 'Hono', folder: 'hono', packages: ['hono', '@hono/node-server'], serve: () => ['hono/server.mjs'] },
  { name: 'Koa', folder: 'koa', packages: ['koa'], serve: () => ['koa/server.mjs'] },
  {
    name: 'Next.js',
    folder: 'next/app',
    into: 'app',
    packages: ['next', 'react', 'react-dom'],
    build: next('build'),
    serve: (port) => next('start', '--port', String(port), '--hostname', '127.0.0.1'),
  },
];

/** The contract cases of create, replay and conflict: ids 1, 2, 3, 7, 8, 9, so one store serves them all. */
const CREATE_REPLAY_CONFLICT = [
  'creates a plant with a tag',
  'creates a plant without a tag',
  'accepts the empty string as a name',
  'replays a create of the same plant with 200 and the same body',
  'answers 40003 for the same id with another name and keeps the first plant',
  'answers 40003 for the same id with a tag where the stored plant has none',
];
const MOUNT = '/plant-api';

const work = scratchDirectory('plant-store-frameworks-');
const app = join(work, 'app');
const env = { ...npmEnv, NEXT_TELEMETRY_DISABLED: '1', PLANT_STORE_TOKEN: TOKEN };

beforeAll(async () => {
  const packed = (await packedTarballs(join(work, 'tarballs'))).map((p) => p.tarball);
  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'plant-store-frameworks', private: true, type: 'module' }, null, 2),
  );
  for (const { folder, into } of frameworks) cpSync(join(here, folder), join(app, into ?? folder), { recursive: true });
  const registry = frameworks.flatMap((f) => f.packages).map((name) => `${name}@${versionOf(name)}`);
  await installInto(app, [...packed, ...registry], 420_000);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Served {
  readonly origin: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts the example and resolves once it answers HTTP on its port; fails with its output if it exits. */
async function serve(command: (port: number) => readonly string[]): Promise<Served> {
  const port = await freePort();
  const args = command(port);
  const child: ChildProcess = spawn(process.execPath, args.map(String), {
    cwd: app,
    env: { ...env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${args.join(' ')} exited:\n${output}`);
    try {
      await fetch(`${origin}${MOUNT}/plants`, { signal: AbortSignal.timeout(5_000) });
      return { origin, output: () => output, stop };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${args.join(' ')} did not answer on ${origin} within 60 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe.each(frameworks.map((f) => [`${f.name} ${versionOf(f.packages[0]!)}`, f] as const))(
  '%s',
  (_title, { name, build, serve: command }) => {
    let served: Served | undefined;
    beforeAll(async () => {
      if (build !== undefined) await runOk(process.execPath, [...build], { cwd: app, env, timeoutMs: 420_000 });
      served = await serve(command);
    }, 480_000);
    afterAll(() => served?.stop());
    const origin = () => {
      if (served === undefined) throw new Error(`the ${name} example did not start`);
      return served.origin;
    };

    it.each(CREATE_REPLAY_CONFLICT)(`%s, under ${MOUNT} (${name})`, async (caseName) => {
      const caseIndex = cases.findIndex((c) => c.name === caseName);
      const testCase = cases[caseIndex];
      if (testCase === undefined) throw new Error(`no contract case named "${caseName}"`);
      const outcome = await runCase(testCase, caseIndex, (request) =>
        sendOverHttp(origin(), { ...request, path: MOUNT + request.path }),
      );
      if ('failure' in outcome) throw new Error(`${outcome.failure}\n${served?.output()}`);
      const problems = testCase.steps.flatMap((step, i) =>
        expectationProblems(step, withRequestId(step.request, caseIndex, i), outcome.steps[i]!),
      );
      problems.push(...differences(testCase, caseIndex, await runOnCore(testCase, caseIndex), outcome));
      expect(problems).toEqual([]);
    });

    it(`creates and replays 2^53+1 apart from 2^53 through the client, and rejects a conflict and a wrong token (${name})`, async () => {
      const baseUrl = origin() + MOUNT;
      const plant = { id: 9007199254740993n, name: 'Fern', tag: 'shade' };
      await expect(createPlant(TOKEN, plant, { baseUrl })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
      await expect(createPlant(TOKEN, plant, { baseUrl })).resolves.toEqual({ name: 'Fern', tag: 'shade' });
      await expect(createPlant(TOKEN, { id: 9007199254740992n, name: 'Moss' }, { baseUrl })).resolves.toEqual({
        name: 'Moss',
      });
      const conflict = await createPlant(
        TOKEN,
        { id: 9007199254740993n, name: 'Elm' },
        { baseUrl, requestId: 'conflict-1' },
      ).catch((e: unknown) => e);
      expect(PlantStoreApiError.is(conflict)).toBe(true);
      expect(conflict).toMatchObject({ status: 400, code: ErrorCode.ID_CONFLICT, requestId: 'conflict-1' });
      const refused = await createPlant('not-the-token', { id: 1, name: 'a' }, { baseUrl, retries: 0 }).catch(
        (e: unknown) => e,
      );
      expect(refused).toMatchObject({ status: 401, code: ErrorCode.INVALID_TOKEN });
    });

    it(`keeps the app's own JSON route beside the service, and answers the service's 404 under ${MOUNT} (${name})`, async () => {
      const note = await fetch(`${origin()}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"water the fern"}',
      });
      expect(note.status).toBe(200);
      expect(await note.json()).toEqual({ received: { text: 'water the fern' } });
      const unknown = await fetch(`${origin()}${MOUNT}/elsewhere`, { method: 'POST' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: ErrorCode.NOT_FOUND });
    });
  },
);
