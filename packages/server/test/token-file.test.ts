// --token-file with the real CLI in a child process: entries in the clear or as sha256:, comments,
// SIGHUP re-reads the file while requests keep coming (none fails), a token added is accepted and a
// token removed refused, a file that cannot be read or parsed keeps the tokens as they were.
import { createHash } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listening, type Run, run } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const sha256 = (token: string) => `sha256:${createHash('sha256').update(token).digest('hex')}`;

/** Writes the file whole, then renames it into place, as an operator's deploy should (never half a file). */
function writeTokens(path: string, text: string): void {
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}

let nextId = 1;
async function create(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Polls until `token` gets `status` (each poll a real create); how long that took, in ms. */
async function until(url: string, token: string, status: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 400; i++) {
    if ((await create(url, token)) === status) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`token never answered ${status}`);
}

async function start(text: string, extra: string[] = []): Promise<{ cli: Run; url: string; path: string }> {
  const path = join(dir, `tokens-${files++}.txt`);
  writeTokens(path, text);
  const cli = run(['--port', '0', '--token-file', path, ...extra]);
  return { cli, url: await listening(cli), path };
}

describe('--token-file', () => {
  it('accepts tokens in the clear and by sha256, ignores comments and blank lines, prints no token', async () => {
    const { cli, url } = await start(
      `# the deploy bot\n\nplain-token-1\n  ${sha256('hashed-token-2')}  \r\n# old: gone\n`,
    );
    expect(cli.stdout).toContain('Accepting the tokens of');
    expect(cli.stdout).not.toContain('Token:');
    expect(await create(url, 'plain-token-1')).toBe(200);
    expect(await create(url, 'hashed-token-2')).toBe(200);
    expect(await create(url, sha256('hashed-token-2'))).toBe(401);
    expect(await create(url, 'gone')).toBe(401);
  });

  it('keeps the tokens it has when a reload finds the file unreadable or malformed, and says why', async () => {
    const { cli, url, path } = await start('kept-token\n');
    writeTokens(path, 'kept-token\nbad entry here\n');
    cli.child.kill('SIGHUP');
    await until(url, 'kept-token', 200);
    for (let i = 0; i < 100 && !cli.stderr.includes('previous tokens stay'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cli.stderr).toContain('SIGHUP: the previous tokens stay');
    expect(cli.stderr).toContain('line 2');
    expect(cli.stderr).not.toContain('bad entry here');
    rmSync(path);
    cli.child.kill('SIGHUP');
    for (let i = 0; i < 100 && !cli.stderr.includes('cannot read'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(cli.stderr).toContain('cannot read the token file');
    expect(await create(url, 'kept-token')).toBe(200);
    expect(cli.child.exitCode).toBeNull();
  });

  it('rotates 20 times under load without a failed request: added tokens accepted, removed ones refused', async () => {
    const { cli, url, path } = await start(`steady-token\nrotating-0\n`);
    let stop = false;
    const counts = { sent: 0, ok: 0, failed: 0 };
    const failures: string[] = [];
    // Eight clients with the token every generation of the file holds: none of their requests may fail.
    const load = Array.from({ length: 8 }, async () => {
      while (!stop) {
        counts.sent++;
        try {
          const status = await create(url, 'steady-token');
          if (status === 200) counts.ok++;
          else {
            counts.failed++;
            failures.push(`status ${status}`);
          }
        } catch (error) {
          counts.failed++;
          failures.push(String(error));
        }
      }
    });
    const toAccept: number[] = [];
    for (let i = 1; i <= 20; i++) {
      // Some load between rotations, so each reload meets requests in flight.
      const before = counts.sent;
      while (counts.sent < before + 40) await new Promise((resolve) => setTimeout(resolve, 5));
      writeTokens(
        path,
        `# generation ${i}\nsteady-token\n${i % 2 === 0 ? `rotating-${i}` : sha256(`rotating-${i}`)}\n`,
      );
      cli.child.kill('SIGHUP');
      toAccept.push(await until(url, `rotating-${i}`, 200));
      expect(await create(url, `rotating-${i - 1}`)).toBe(401);
    }
    stop = true;
    await Promise.all(load);
    console.info(
      `20 rotations under load: ${counts.sent} requests, ${counts.ok} answered 200, ${counts.failed} failed; a new token was accepted after at most ${Math.round(Math.max(...toAccept))} ms`,
    );
    expect(failures).toEqual([]);
    expect(counts.ok).toBe(counts.sent);
    expect(counts.sent).toBeGreaterThan(0);
    expect(cli.child.exitCode).toBeNull();
  }, 120_000);
});
