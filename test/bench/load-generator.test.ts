// The bench's load generator rewrites each connection's request buffer in place to send unique ids
// (bench/lib/load.mjs): this checks, against a server that records what it gets, that every create
// it sends carries a new id and a well-formed body, so an autocannon upgrade that changes when it
// writes the buffer cannot quietly turn the creates into replays. It also checks the session mode
// the bench's head-to-head runs use: several bursts from one process, two servers at once.
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const LOAD = fileURLToPath(new URL('../../bench/lib/load.mjs', import.meta.url));

const servers: Server[] = [];
afterEach(() =>
  Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve())))),
);

function recordingServer(): Promise<{ url: string; bodies: string[]; authorizations: Set<string | undefined> }> {
  const bodies: string[] = [];
  const authorizations = new Set<string | undefined>();
  const server = createServer((req, res) => {
    authorizations.add(req.headers.authorization);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, bodies, authorizations });
    }),
  );
}

function runLoad(config: object): Promise<{ total: number; statusCodes: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD, JSON.stringify(config)], { timeout: 30_000 }, (error, stdout, stderr) => {
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (error || !line) reject(new Error(`load.mjs failed: ${error?.message ?? ''}\n${stderr}`));
      else resolve(JSON.parse(line.slice(7)));
    });
  });
}

type Result = { total: number; statusCodes: Record<string, number> };

/** Runs `load.mjs --session` with `configs`, one line each, and returns every RESULT in order. */
function runSession(configs: object[]): Promise<{ results: object[]; phases: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD, '--session'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const results: object[] = [];
    let phases = 0;
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'PHASE measure') phases++;
      if (!line.startsWith('RESULT ')) return;
      results.push(JSON.parse(line.slice(7)));
      // The next burst is sent only once this one is answered, as bench/lib/proc.mjs does.
      if (results.length < configs.length) child.stdin.write(`${JSON.stringify(configs[results.length])}\n`);
      else child.stdin.end();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0 && results.length === configs.length) resolve({ results, phases });
      else reject(new Error(`load.mjs --session exited ${code} after ${results.length} results\n${stderr}`));
    });
    child.stdin.write(`${JSON.stringify(configs[0])}\n`);
  });
}

const idsOf = (bodies: string[]) => bodies.map((body) => (JSON.parse(body) as { id: number }).id);

/** One counter shared by every connection (and burst): the ids are exactly idBase, idBase + 1, … with none twice. */
function expectCounted(ids: number[], idBase: number) {
  expect(new Set(ids).size).toBe(ids.length);
  expect(Math.min(...ids)).toBe(idBase);
  expect(Math.max(...ids)).toBe(idBase + ids.length - 1);
}

describe('bench load generator', () => {
  it('sends every unique create with a new id, over all connections, warm-up included', async () => {
    const { url, bodies } = await recordingServer();
    const idBase = 3_000_000_000;
    const result = await runLoad({
      url,
      token: 't',
      workload: 'unique',
      connections: 8,
      duration: 1,
      warmup: 1,
      idBase,
    });
    expect(result.statusCodes).toEqual({ '200': result.total });
    expect(bodies.length).toBeGreaterThan(result.total);
    const ids = bodies.map((body) => {
      const plant = JSON.parse(body) as { id: number; name: string; tag: string };
      expect(plant).toEqual({ id: plant.id, name: 'Monstera deliciosa', tag: 'indoor' });
      return plant.id;
    });
    expectCounted(ids, idBase);
  });

  it('drives two servers at once in a session, each with its own connections, and never repeats an id across bursts', async () => {
    const first = await recordingServer();
    const second = await recordingServer();
    const idBase = 4_000_000_000;
    const burst = { token: 't', workload: 'unique', connections: 4, duration: 1, warmup: 0, idBase };
    const { results, phases } = await runSession([
      { ...burst, urls: [first.url, second.url] },
      { ...burst, url: second.url },
    ]);
    expect(phases).toBe(2);
    const [both, alone] = results as [{ results: [Result, Result] }, Result];
    expect(both.results).toHaveLength(2);
    const [toFirst, toSecond] = both.results;
    expect(toFirst.statusCodes).toEqual({ '200': toFirst.total });
    expect(toSecond.statusCodes).toEqual({ '200': toSecond.total });
    expect(alone.statusCodes).toEqual({ '200': alone.total });
    // Each server got its own share: the first only the first burst, the second both bursts.
    expect(first.bodies.length).toBeGreaterThanOrEqual(toFirst.total);
    expect(second.bodies.length).toBeGreaterThanOrEqual(toSecond.total + alone.total);
    const ids = [...idsOf(first.bodies), ...idsOf(second.bodies)];
    expectCounted(ids, idBase);
  });

  it('sends each server of a head-to-head run its own token when `tokens` gives one per url', async () => {
    const first = await recordingServer();
    const second = await recordingServer();
    const burst = { token: 'default', workload: 'unique', connections: 2, duration: 1, warmup: 0 };
    await runSession([{ ...burst, urls: [first.url, second.url], tokens: ['jwt-like.a.b', 'static'] }]);
    expect([...first.authorizations]).toEqual(['Bearer jwt-like.a.b']);
    expect([...second.authorizations]).toEqual(['Bearer static']);
  });

  it('sends the fixed-id pair to each server of a head-to-head run', async () => {
    const first = await recordingServer();
    const second = await recordingServer();
    await runSession([
      { token: 't', workload: 'fixed', connections: 2, duration: 1, warmup: 0, urls: [first.url, second.url] },
    ]);
    for (const { bodies } of [first, second]) {
      expect(bodies.length).toBeGreaterThan(10);
      expect(new Set(bodies)).toEqual(
        new Set([
          '{"id":4242,"name":"Monstera deliciosa","tag":"indoor"}',
          '{"id":4242,"name":"Monstera deliciosa","tag":"outdoor"}',
        ]),
      );
    }
  });
});
