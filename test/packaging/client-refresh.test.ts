// The client's token provider and middleware as a user gets them: the packed @plant-store/client alone
// (it has no dependency, so the install is quick) in a fresh project outside the repository, its
// checks run there by node against a scripted HTTP server here that counts what reaches it: a token
// refreshed once, a second refusal, one refresh for 20 calls refused together, a string token's 401,
// and middleware on each attempt of a 503 then 200.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installInto, packedTarballs, runOk, scratchDirectory } from './helpers.js';

const work = scratchDirectory('plant-store-client-refresh-');
const app = join(work, 'app');
let server: Server | undefined;
let url = '';

/** What reached the server, by path: each request's token and `x-attempt` header. */
const seen = new Map<string, { token: string; attempt: string | undefined }[]>();
/** The calls of the concurrent check waiting for their 401 until all 20 have arrived. */
const held: (() => void)[] = [];

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });
const refused = answer(401, { error: 40102, message: 'The bearer token is not accepted' });
const created = answer(200, { name: 'Fern' });

/** The scripted answers: `/refresh` and `/held` accept `fresh-token` only, `/never…` no token, `/flaky` a 503 first. */
async function respond(path: string, request: IncomingMessage, token: string) {
  const count = seen.get(path)!.length;
  if (path === '/refresh') return token === 'fresh-token' ? created : refused;
  if (path.startsWith('/never')) return refused;
  if (path === '/flaky')
    return count === 1 ? answer(503, { error: 50301, message: 'busy' }, { 'retry-after': '0' }) : created;
  if (path === '/held') {
    if (token === 'fresh-token') return created;
    // Every refusal waits for the 20th stale request: all 20 calls meet the same 40102 together.
    await new Promise<void>((resolve) => {
      held.push(resolve);
      if (held.length === 20) for (const release of held) release();
    });
    return refused;
  }
  throw new Error(`no script for ${path} (${request.method})`);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname.replace(/\/plants$/, '');
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    const attempt = request.headers['x-attempt'] as string | undefined;
    seen.set(path, [...(seen.get(path) ?? []), { token, attempt }]);
    request.resume();
    void respond(path, request, token).then(({ status, body, headers }) =>
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const client = (await packedTarballs(join(work, 'tarballs'))).find((p) => p.name === '@plant-store/client')!;
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'client-refresh', private: true, type: 'module' }));
  await installInto(app, [client.tarball], 120_000);
}, 300_000);

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

/** Runs `body` as a module of the consumer project (with `url` and the client's exports in scope); its JSON output. */
async function check(name: string, body: string): Promise<any> {
  const file = join(app, `${name}.mjs`);
  writeFileSync(
    file,
    `import { createPlant, createPlantStoreClient, PlantStoreApiError } from '@plant-store/client';\nconst url = process.argv[2];\n${body}\n`,
  );
  const { stdout } = await runOk(process.execPath, [file, url], { cwd: app, timeoutMs: 30_000 });
  return JSON.parse(stdout);
}

it('lands a create after one refresh on 40102: the provider asked with false then true, two attempts', async () => {
  const outcome = await check(
    'refresh',
    `const asked = [];
const provider = ({ refresh }) => (asked.push(refresh), refresh ? 'fresh-token' : 'stale-token');
const plant = await createPlant(provider, { id: 1, name: 'Fern' }, { baseUrl: url + '/refresh' });
console.log(JSON.stringify({ plant, asked }));`,
  );

  expect(outcome).toEqual({ plant: { name: 'Fern' }, asked: [false, true] });
  expect(seen.get('/refresh')!.map((request) => request.token)).toEqual(['stale-token', 'fresh-token']);
});

it('rejects with the second 40102 as a PlantStoreApiError after two provider calls', async () => {
  const outcome = await check(
    'second-refusal',
    `const asked = [];
const error = await createPlant(({ refresh }) => (asked.push(refresh), refresh ? 'also-refused' : 'stale-token'), { id: 1, name: 'Fern' }, { baseUrl: url + '/never' }).catch((e) => e);
console.log(JSON.stringify({ api: PlantStoreApiError.is(error), code: error.code, asked }));`,
  );

  expect(outcome).toEqual({ api: true, code: 40102, asked: [false, true] });
  expect(seen.get('/never')).toHaveLength(2);
});

it('asks the provider to refresh once for 20 concurrent calls that meet the same 40102', async () => {
  const outcome = await check(
    'single-flight',
    `let refreshes = 0;
const provider = async ({ refresh }) => (refresh ? (refreshes++, 'fresh-token') : 'stale-token');
const client = createPlantStoreClient({ baseUrl: url + '/held' });
const plants = await Promise.all(Array.from({ length: 20 }, (_, id) => client.createPlant(provider, { id, name: 'Fern' })));
console.log(JSON.stringify({ created: plants.length, refreshes }));`,
  );

  expect(outcome).toEqual({ created: 20, refreshes: 1 });
  const tokens = seen.get('/held')!.map((request) => request.token);
  expect(tokens.filter((token) => token === 'stale-token')).toHaveLength(20);
  expect(tokens.filter((token) => token === 'fresh-token')).toHaveLength(20);
});

it("rejects a string token's 401 after one attempt", async () => {
  const outcome = await check(
    'string-token',
    `const error = await createPlant('stale-token', { id: 1, name: 'Fern' }, { baseUrl: url + '/never-string' }).catch((e) => e);
console.log(JSON.stringify({ status: error.status, code: error.code }));`,
  );

  expect(outcome).toEqual({ status: 401, code: 40102 });
  expect(seen.get('/never-string')).toHaveLength(1);
});

it('runs a middleware onRequest on each attempt of a 503 then 200, and its header reaches the server', async () => {
  const outcome = await check(
    'middleware',
    `let attempts = 0;
const numbered = {
  onRequest({ request }) {
    const headers = new Headers(request.headers);
    headers.set('x-attempt', String(++attempts));
    return new Request(request, { headers });
  },
};
const plant = await createPlant('token', { id: 1, name: 'Fern' }, { baseUrl: url + '/flaky', middleware: [numbered] });
console.log(JSON.stringify({ plant, attempts }));`,
  );

  expect(outcome).toEqual({ plant: { name: 'Fern' }, attempts: 2 });
  expect(seen.get('/flaky')!.map((request) => request.attempt)).toEqual(['1', '2']);
});
