// `npm start` (scripts/start.mjs) runs the reference server from the sources: it prints the URL and
// token without a build, serves, and drains and exits 0 on SIGTERM, leaving no server behind.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));

it('serves from the sources, then drains and exits 0 on SIGTERM, its server with it', async () => {
  const child = spawn(process.execPath, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    let out = '';
    const banner = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
        if (out.includes('Token: ')) resolve(out);
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk;
      });
      child.on('exit', () => reject(new Error(`exited before its banner: ${out}${err}`)));
    });
    const url = /listening on (\S+)/.exec(banner)![1]!;
    const token = /Token: (\S+)/.exec(banner)![1]!;
    const res = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id":1,"name":"Fern"}',
    });
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // The server was the script's child: once the script is gone, nothing answers on its port.
    await expect(fetch(`${url}/plants`, { method: 'POST' })).rejects.toThrow();
  } finally {
    child.kill('SIGKILL');
  }
});
