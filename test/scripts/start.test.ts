// `npm start` (scripts/start.mjs) runs the reference server from the sources: it prints the URL and
// token without a build, serves, and drains and exits 0 on SIGTERM, leaving no server behind, also
// when the signal goes to npm alone, as a process manager sends it.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { alive, descendants } from '../support/processes.js';

const script = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

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

/** Resolves with the URL and token of the banner, or rejects with what the process printed. */
function banner(child: ChildProcess): Promise<{ url: string; token: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk;
      const url = /listening on (\S+)/.exec(out)?.[1];
      const token = /Token: (\S+)/.exec(out)?.[1];
      if (url !== undefined && token !== undefined) resolve({ url, token });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => reject(new Error(`exited before its banner: ${out}`)));
  });
}

// SIGTERM and SIGINT reach the script through npm (the script is exec'd, so npm's forwarding reaches
// it); SIGKILL cannot be forwarded, and the script sees npm's death by its new parent.
it.each(['SIGTERM', 'SIGINT', 'SIGKILL'] as const)(
  'stops the server with npm when %s is sent to the npm process alone, leaving its port free',
  async (signal) => {
    // Its own process group, so the signal goes to npm only, never to the group as a terminal sends it.
    const npm = spawn('npm', ['start', '--', '--port', '0'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tree: number[] = [];
    try {
      const { url, token } = await banner(npm);
      const res = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"id":1,"name":"Fern"}',
      });
      expect(res.status).toBe(200);
      tree = descendants(npm.pid!);
      // npm's shell, node scripts/start.mjs and the server at least.
      expect(tree.length).toBeGreaterThanOrEqual(2);
      process.kill(npm.pid!, signal);
      const deadline = Date.now() + 20_000;
      while (tree.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(tree.filter(alive), 'processes left running after npm was stopped').toEqual([]);
      await expect(fetch(`${url}/plants`, { method: 'POST' })).rejects.toThrow();
    } finally {
      for (const pid of [npm.pid!, ...tree]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  },
  60_000,
);
