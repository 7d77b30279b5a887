// The plant-store-server command as users run it: the built dist/cli.js in a child process (the
// root `npm test` builds first). Every child is killed after its test; every wait is bounded.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listening, run } from './cli-process.js';
import { RawConnection, connectionRefused } from './helpers.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

const create = (url: string, token: string, id = 1) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'Fern' }),
  });

it('prints its usage for --help and exits 0', async () => {
  const result = run(['--help']);
  expect(await result.exited).toBe(0);
  expect(result.stdout).toContain('Usage: plant-store-server');
  expect(result.stdout).toContain('PLANT_STORE_TOKENS');
});

it('prints the package version for --version and exits 0', async () => {
  const result = run(['--version']);
  expect(await result.exited).toBe(0);
  expect(result.stdout.trim()).toBe(VERSION);
});

// Which flags and values are refused, and with what message, the option parser's tests check in
// process (cli-*options.test.ts); here, that a usage error reaches stderr with exit code 2.
it('exits 2 with a message on stderr and nothing on stdout for an unknown flag', async () => {
  const result = run(['--prot', '80']);
  expect(await result.exited).toBe(2);
  expect(result.stderr).toContain("Unknown option '--prot'");
  expect(result.stderr).toContain('--help');
  expect(result.stdout).toBe('');
});

it('exits 2 for a CORS origin no browser would send, and 1 when the data file cannot be opened', async () => {
  const origin = run(['--port', '0', '--cors', 'app.example']);
  expect(await origin.exited).toBe(2);
  expect(origin.stderr).toContain('origins as browsers send them');
  // The values are well-formed; the start itself fails (a directory is no data file), as the README says.
  const data = run(['--port', '0', '--data', tmpdir()]);
  expect(await data.exited).toBe(1);
  expect(data.stderr).toContain('could not start');
});

it('prints the URL and the token it generated, and accepts that token', async () => {
  const result = run(['--port', '0']);
  const url = await listening(result);
  const token = /Token: (\S+)/.exec(result.stdout)?.[1] ?? '';
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(token).not.toBe('');
  // One write: a script that reads the URL line can read the token from the same chunk (on Node 24
  // the two lines once came as two chunks and a reader that stopped at the URL missed the token).
  expect(result.firstChunk).toContain(`listening on ${url}\nToken: ${token}\n`);
  expect((await create(url, token)).status).toBe(200);
  expect((await create(url, 'guess', 2)).status).toBe(401);
});

it('takes its options from the environment and does not print tokens it was given', async () => {
  const result = run([], {
    PLANT_STORE_PORT: '0',
    PLANT_STORE_TOKENS: 'env-token-1,env-token-2',
    PLANT_STORE_BASE_PATH: '/api',
    PLANT_STORE_LOG: '1',
  });
  const url = await listening(result);
  expect(url).toMatch(/\/api$/);
  expect((await create(url, 'env-token-2')).status).toBe(200);
  expect(result.stdout).not.toContain('Token:');
  expect(result.stdout + result.stderr).not.toContain('env-token');
  // The request log is on stderr, one JSON line per request (the pipe delivers it a moment later).
  for (let i = 0; i < 100 && !result.stderr.includes('\n'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const request = () => result.stderr.split('\n').find((line) => line.includes('"message":"request"'));
  for (let i = 0; i < 100 && request() === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(JSON.parse(request() ?? '')).toMatchObject({ status: 200, path: '/api/plants' });
});

it('lets a flag win over its environment variable', async () => {
  const result = run(['--token', 'flag-token', '--port', '0'], { PLANT_STORE_TOKENS: 'env-token' });
  const url = await listening(result);
  expect((await create(url, 'flag-token')).status).toBe(200);
  expect((await create(url, 'env-token', 2)).status).toBe(401);
});

it('finishes a request in flight on SIGTERM, then exits 0', async () => {
  const result = run(['--port', '0', '--token', 't']);
  const url = await listening(result);
  const port = Number(new URL(url).port);
  const client = await RawConnection.open(port);
  const body = '{"id":1,"name":"In flight"}';
  await client.write(
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  // 100 Continue: the server is reading this request's body when the signal arrives.
  expect(await client.waitForText('100 Continue')).toBe(true);
  result.child.kill('SIGTERM');
  let refused = false;
  for (let i = 0; i < 100 && !refused; i++) {
    refused = await connectionRefused(port);
    if (!refused) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(refused).toBe(true);
  await client.write(body);
  const [answer] = await client.waitForAnswers(1);
  client.destroy();
  expect(answer?.status).toBe(200);
  expect(await result.exited).toBe(0);
});

it('keeps plants in the --data file across a SIGTERM and a restart, and says what it replayed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-cli-'));
  try {
    const path = join(dir, 'plants.log');
    const first = run(['--port', '0', '--token', 't', '--data', path]);
    const url = await listening(first);
    expect(first.stdout).toContain(`Data: ${path} (new file)`);
    expect((await create(url, 't', 7)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = run(['--port', '0', '--token', 't', '--data', path]);
    const again = await listening(second);
    expect(second.stdout).toContain(`Data: ${path} (1 plant replayed)`);
    // Same id, same plant: a replay, which proves the first server's plant was on disk.
    expect((await create(again, 't', 7)).status).toBe(200);
    expect(
      (
        await fetch(`${again}/plants`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
          body: '{"id":7,"name":"Oak"}',
        })
      ).status,
    ).toBe(400);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('drains and exits 0 on a signal sent the moment the banner arrives, as a supervisor that stops it at once would', async () => {
  // The handlers must be in place before the banner is written: sent on its first byte, a signal
  // that came before them ended the process with the signal's default action (no drain, no exit code).
  for (const signal of [
    'SIGTERM',
    'SIGINT',
    'SIGTERM',
    'SIGINT',
    'SIGTERM',
    'SIGTERM',
    'SIGTERM',
    'SIGTERM',
  ] as const) {
    const result = run(['--port', '0']);
    result.child.stdout?.once('data', () => result.child.kill(signal));
    expect(await result.ended, `${signal} on the banner; stderr: ${result.stderr}`).toEqual([0, null]);
  }
}, 60_000);

it('exits 0 on SIGINT when idle', async () => {
  const result = run(['--port', '0']);
  await listening(result);
  result.child.kill('SIGINT');
  expect(await result.exited).toBe(0);
});
