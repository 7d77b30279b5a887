// The bench's load generator rewrites each connection's request buffer in place to send unique ids
// (bench/lib/load.mjs): this checks, against a server that records what it gets, that every create
// it sends carries a new id and a well-formed body, so an autocannon upgrade that changes when it
// writes the buffer cannot quietly turn the creates into replays.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const LOAD = fileURLToPath(new URL('../../bench/lib/load.mjs', import.meta.url));

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

function recordingServer(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => {
      const { port } = server!.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, bodies });
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

describe('bench load generator', () => {
  it('sends every unique create with a new id, over all connections, warm-up included', async () => {
    const { url, bodies } = await recordingServer();
    const idBase = 3_000_000_000;
    const result = await runLoad({ url, token: 't', workload: 'unique', connections: 8, duration: 1, warmup: 1, idBase });
    expect(result.statusCodes).toEqual({ '200': result.total });
    expect(bodies.length).toBeGreaterThan(result.total);
    const ids = bodies.map((body) => {
      const plant = JSON.parse(body) as { id: number; name: string; tag: string };
      expect(plant).toEqual({ id: plant.id, name: 'Monstera deliciosa', tag: 'indoor' });
      return plant.id;
    });
    // A counter shared by the connections: the ids are exactly idBase, idBase + 1, … with none twice.
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.min(...ids)).toBe(idBase);
    expect(Math.max(...ids)).toBe(idBase + ids.length - 1);
  });
});
