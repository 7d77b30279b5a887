// --workers on a real PostgreSQL, with real processes and real signals: every worker serves with the
// one token, /metrics sums the workers, a SIGKILLed worker is replaced while the others answer and
// nothing acknowledged is lost, /readyz follows the database, and no worker outlives its primary.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../../test/support/postgres.js';
import { alive } from '../../../test/support/processes.js';
import { listening, type Run, run } from './cli-process.js';

let db: EmbeddedDatabase;
let tables = 0;
beforeAll(async () => {
  db = await startEmbeddedPostgres();
}, 180_000);
afterAll(async () => {
  await db?.close();
});

interface Cluster {
  readonly run: Run;
  readonly url: string;
  readonly opsUrl: string;
  readonly token: string;
}

/** `token`: the one the flags in `extra` give (a token file, `--token`); otherwise the banner's. */
async function startCluster(workers: number, extra: string[] = [], token?: string): Promise<Cluster> {
  const table = `plants_workers_${tables++}`;
  const cluster = run([
    '--database',
    db.url,
    '--database-table',
    table,
    '--workers',
    String(workers),
    '--port',
    '0',
    '--ops-port',
    '0',
    '--log',
    ...extra,
  ]);
  const url = await listening(cluster);
  const opsUrl = /Operations: (\S+)\/livez/.exec(cluster.stdout)?.[1];
  const accepted = token ?? /Token: (\S+)/.exec(cluster.stdout)?.[1];
  if (opsUrl === undefined || accepted === undefined)
    throw new Error(`no operations URL or token in the banner: ${cluster.stdout}`);
  return { run: cluster, url, opsUrl, token: accepted };
}

// Bounded: a connection the kernel handed to the worker just killed is never answered.
const create = (c: Cluster, id: number | bigint, body = `{"id":${id},"name":"plant ${id}"}`, token = c.token) =>
  fetch(`${c.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(5_000),
  });

/** The JSON log lines the cluster wrote so far. */
const logLines = (c: Cluster) =>
  c.run.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The cluster's request lines once there are at least `count`: they reach the log in blocks, at most 200 ms late. */
const requestLines = (c: Cluster, count: number) =>
  until(`${count} request lines`, () => {
    const lines = logLines(c).filter((l) => l.message === 'request');
    return lines.length >= count ? lines : undefined;
  });

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('serves from every worker with the one token, and /metrics counts the requests of all workers by status', async () => {
  const c = await startCluster(2);
  expect(c.run.stdout).toContain('(2 workers)');
  expect(c.run.stdout.match(/Token: /g)).toHaveLength(1);
  // Each request on a connection of its own, so both workers answer some.
  const statuses: number[] = [];
  for (let id = 1; id <= 40; id++) statuses.push((await create(c, id)).status);
  for (let i = 0; i < 6; i++) statuses.push((await create(c, 1, '{"id":1,"name":"another"}')).status);
  for (let i = 0; i < 4; i++) statuses.push((await create(c, 2, '{"id":2,"name":"x"}', 'wrong')).status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(40);
  const served = new Set((await requestLines(c, statuses.length)).map((l) => l.worker));
  expect(served.size).toBe(2);
  const text = await (await fetch(`${c.opsUrl}/metrics`)).text();
  const families = parsePrometheus(text) as Array<{
    name: string;
    metrics: Array<{ value: string; labels: Record<string, string> }>;
  }>;
  const requests = families.find((f) => f.name === 'plant_store_http_requests_total')?.metrics ?? [];
  const counts = Object.fromEntries(requests.map((m) => [`${m.labels.status} ${m.labels.code}`, Number(m.value)]));
  expect(counts, text).toEqual({ '200 ': 40, '400 40003': 6, '401 40102': 4 });
  const pool = families.find((f) => f.name === 'plant_store_db_pool_connections')?.metrics ?? [];
  expect(pool.map((m) => m.labels.state).sort()).toEqual(['idle', 'in_use', 'max', 'waiting']);
  c.run.child.kill('SIGTERM');
  expect(await c.run.exited).toBe(0);
}, 60_000);

it('replaces a SIGKILLed worker while the others answer, and loses nothing it acknowledged', async () => {
  const c = await startCluster(2);
  const workers = await until('both workers to log their start', () => {
    const started = logLines(c).filter((l) => l.message === 'listening' && typeof l.worker === 'number');
    return started.length >= 2 ? started : undefined;
  });
  const victim = Number(workers[0]!.pid);
  const acknowledged: number[] = [];
  const failed: number[] = [];
  let next = 1;
  let killed = false;
  const deadline = Date.now() + 4_000;
  // Four clients in a loop for 4 s; the victim is killed after the first second.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < deadline) {
        if (!killed && Date.now() > deadline - 3_000) {
          killed = true;
          process.kill(victim, 'SIGKILL');
        }
        const id = next++;
        const status = await create(c, id).then(
          (res) => res.status,
          () => 0,
        );
        (status === 200 ? acknowledged : failed).push(id);
      }
    }),
  );
  expect(killed).toBe(true);
  // The other worker kept answering: most creates were acknowledged, the failures were the victim's.
  expect(acknowledged.length).toBeGreaterThan(failed.length);
  const replaced = await until('the replacement log line', () =>
    logLines(c).find((l) => l.message === 'worker exited; replacing it' && l.pid === victim),
  );
  expect(replaced).toMatchObject({ level: 'error', signal: 'SIGKILL' });
  await until('a replacement worker to start', () =>
    logLines(c).filter((l) => l.message === 'listening' && typeof l.worker === 'number').length >= 3 ? true : undefined,
  );
  // Nothing acknowledged is lost: every acknowledged id is in the table (read before anything is sent
  // again, since a lost create sent again would simply be created anew).
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id::text FROM plants_workers_${tables - 1} WHERE id = ANY($1::bigint[])`,
      [acknowledged.map(String)],
    );
    expect(rows.length).toBe(acknowledged.length);
  } finally {
    await pool.end();
  }
  c.run.child.kill('SIGTERM');
  expect(await c.run.exited).toBe(0);
}, 120_000);

it('answers /readyz 503 while the database is away and 200 once it is back, and serves again', async () => {
  const c = await startCluster(2);
  const readyz = async () => (await fetch(`${c.opsUrl}/readyz`)).status;
  await until('ready', async () => ((await readyz()) === 200 ? true : undefined));
  await db.stop();
  try {
    await until('/readyz 503', async () => ((await readyz()) === 503 ? true : undefined));
    expect((await create(c, 1)).status).toBe(503);
  } finally {
    await db.start();
  }
  await until('/readyz 200 again', async () => ((await readyz()) === 200 ? true : undefined));
  expect((await create(c, 1)).status).toBe(200);
  const lines = logLines(c);
  expect(lines.some((l) => l.message === 'store unavailable')).toBe(true);
  expect(lines.some((l) => l.message === 'store available again')).toBe(true);
  c.run.child.kill('SIGTERM');
  expect(await c.run.exited).toBe(0);
}, 60_000);

it('drains every worker and exits 0 on a SIGTERM sent the moment the banner arrives', async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const cluster = run([
      '--database',
      db.url,
      '--database-table',
      `plants_workers_${tables++}`,
      '--workers',
      '2',
      '--port',
      '0',
      '--log',
    ]);
    cluster.child.stdout?.once('data', () => cluster.child.kill('SIGTERM'));
    expect(await cluster.ended, `SIGTERM on the banner; stderr: ${cluster.stderr}`).toEqual([0, null]);
    const workers = cluster.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.message === 'listening' && typeof line.worker === 'number')
      .map((line) => Number(line.pid));
    expect(workers).toHaveLength(2);
    await until('the workers to exit', () => (workers.every((pid) => !alive(pid)) ? true : undefined));
  }
}, 90_000);

it('leaves no worker behind when its primary is SIGKILLed', async () => {
  const c = await startCluster(2);
  const pids = await until('both workers', () => {
    const started = logLines(c).filter((l) => l.message === 'listening' && typeof l.worker === 'number');
    return started.length >= 2 ? started.map((l) => Number(l.pid)) : undefined;
  });
  c.run.child.kill('SIGKILL');
  await until('the workers to exit', () => (pids.every((pid) => !alive(pid)) ? true : undefined));
  await expect(fetch(`${c.url}/plants`, { method: 'POST' })).rejects.toThrow();
}, 60_000);

it('re-reads --token-file in every worker on SIGHUP to the primary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-worker-tokens-'));
  try {
    const file = join(dir, 'tokens.txt');
    writeFileSync(file, 'first-token\n');
    const c = await startCluster(2, ['--token-file', file], 'first-token');
    const cluster = c.run;
    expect(cluster.stdout).not.toContain('Token:');
    for (let id = 1; id <= 10; id++) expect((await create(c, id)).status).toBe(200);
    writeFileSync(`${file}.new`, 'second-token\n');
    renameSync(`${file}.new`, file);
    cluster.child.kill('SIGHUP');
    const reloaded = await until('both workers to reload', () => {
      const workers = new Set(
        logLines(c)
          .filter((l) => l.event === 'tokens-reloaded')
          .map((l) => l.worker),
      );
      return workers.size === 2 ? workers : undefined;
    });
    expect(reloaded.size).toBe(2);
    const requestsBefore = (await requestLines(c, 10)).length;
    // Enough requests that both workers answer some: each must refuse the old token and accept the new.
    for (let id = 11; id <= 30; id++) {
      expect((await create(c, id, undefined, 'first-token')).status).toBe(401);
      expect((await create(c, id, undefined, 'second-token')).status).toBe(200);
    }
    const servedAfter = (await requestLines(c, requestsBefore + 40)).slice(requestsBefore);
    expect(new Set(servedAfter.map((l) => l.worker)).size).toBe(2);
    cluster.child.kill('SIGTERM');
    expect(await cluster.exited).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

it('takes the database password from PGPASSFILE, so no secret is on the command line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pgpass-'));
  try {
    const url = new URL(db.url);
    const passfile = join(dir, 'pgpass');
    // libpq's format, host:port:database:user:password; only a file its owner alone can read is used.
    writeFileSync(passfile, `${url.hostname}:${url.port}:*:${url.username}:${decodeURIComponent(url.password)}\n`, {
      mode: 0o600,
    });
    const withoutPassword = `postgres://${url.username}@${url.host}${url.pathname}`;
    const tokens = join(dir, 'tokens.txt');
    writeFileSync(tokens, 'pgpass-token\n', { mode: 0o600 });
    const cli = run(['--port', '0', '--database-table', `plants_workers_${tables++}`, '--token-file', tokens], {
      PLANT_STORE_DATABASE_URL: withoutPassword,
      PGPASSFILE: passfile,
    });
    const served = await listening(cli);
    const c: Cluster = { run: cli, url: served, opsUrl: '', token: 'pgpass-token' };
    expect((await create(c, 1)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

it('counts --rate-limit in each worker apart: with 2 workers a credential gets up to twice the limit', async () => {
  const c = await startCluster(2, ['--token', 'limited-token', '--rate-limit', '3/3600'], 'limited-token');
  const cluster = c.run;
  const statuses: number[] = [];
  for (let id = 1; id <= 20; id++) statuses.push((await create(c, id)).status);
  const byWorker = new Map<unknown, number[]>();
  for (const line of await requestLines(c, statuses.length)) {
    byWorker.set(line.worker, [...(byWorker.get(line.worker) ?? []), line.status as number]);
  }
  // Each worker that answered at least 3 requests allowed exactly 3 and refused the rest.
  expect(byWorker.size).toBe(2);
  for (const answered of byWorker.values()) {
    expect(answered.length).toBeGreaterThanOrEqual(3);
    expect(answered.filter((s) => s === 200)).toHaveLength(3);
  }
  expect(statuses.filter((s) => s === 200)).toHaveLength(6);
  expect(statuses.filter((s) => s === 429)).toHaveLength(14);
  cluster.child.kill('SIGTERM');
  expect(await cluster.exited).toBe(0);
}, 60_000);
