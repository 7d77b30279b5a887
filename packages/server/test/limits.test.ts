// Rate limits on the real server: the client address behind --trust-proxy, and 429s in /metrics.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheus from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { serve, TOKEN } from './helpers.js';

let nextId = 1;
async function post(url: string, token: string, forwardedFor?: string): Promise<number> {
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }),
    },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  await res.arrayBuffer();
  return res.status;
}

const failedAuthLimit = { requests: 2, seconds: 600 };

describe('the client address', () => {
  it('is the socket peer without --trust-proxy: X-Forwarded-For, which a client writes, is ignored', async () => {
    const server = await serve({ auth: { failedAuthLimit } });
    expect(await post(server.url, 'guess-1', '192.0.2.1')).toBe(401);
    expect(await post(server.url, 'guess-2', '192.0.2.2')).toBe(401);
    // Both guesses counted against 127.0.0.1, whatever the header said.
    expect(await post(server.url, TOKEN, '192.0.2.3')).toBe(429);
  });

  it('is the X-Forwarded-For entry that many hops from the right with trustProxy', async () => {
    const server = await serve({ auth: { failedAuthLimit }, trustProxy: 1 });
    expect(await post(server.url, 'guess-1', '192.0.2.1')).toBe(401);
    expect(await post(server.url, 'guess-2', '192.0.2.1')).toBe(401);
    expect(await post(server.url, TOKEN, '192.0.2.1')).toBe(429);
    // Another client behind the same proxy is not held up; an entry the client itself prepended changes nothing.
    expect(await post(server.url, TOKEN, '192.0.2.2')).toBe(200);
    expect(await post(server.url, TOKEN, '198.51.100.7, 192.0.2.1')).toBe(429);
  });

  it('refuses a trustProxy that is not a whole number of proxies', async () => {
    await expect(serve({ trustProxy: -1 })).rejects.toThrow(TypeError);
    await expect(serve({ trustProxy: 1.5 })).rejects.toThrow(TypeError);
  });
});

describe('/metrics', () => {
  it('counts the 429s by status and error code', async () => {
    const server = await serve({ auth: { rateLimit: { requests: 1, seconds: 600 } }, ops: { port: 0 } });
    expect(await post(server.url, TOKEN)).toBe(200);
    expect(await post(server.url, TOKEN)).toBe(429);
    expect(await post(server.url, TOKEN)).toBe(429);
    const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
    const families = parsePrometheus(text) as Array<{
      name: string;
      metrics: Array<{ value: string; labels: Record<string, string> }>;
    }>;
    const requests = families.find((f) => f.name === 'plant_store_http_requests_total')?.metrics ?? [];
    const limited = requests.find((m) => m.labels.status === '429' && m.labels.code === '42901');
    expect(Number(limited?.value)).toBe(2);
  });
});

describe('token file reloads', () => {
  it('swaps the tokens on reloadTokens(), keeps them on a bad file, and counts both in /metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-store-reload-'));
    try {
      const file = join(dir, 'tokens.txt');
      writeFileSync(file, 'first\nsecond\n');
      const server = await serve({ tokens: undefined, tokenFile: file, ops: { port: 0 } });
      expect(await post(server.url, 'first')).toBe(200);
      writeFileSync(file, 'third\n');
      expect(await server.reloadTokens()).toBe(1);
      expect(await post(server.url, 'first')).toBe(401);
      expect(await post(server.url, 'third')).toBe(200);
      writeFileSync(file, 'third\nbad line\n');
      await expect(server.reloadTokens()).rejects.toThrow(/line 2 is not a token entry/);
      expect(await post(server.url, 'third')).toBe(200);
      const families = parsePrometheus(await (await fetch(`${server.opsUrl}/metrics`)).text()) as Array<{
        name: string;
        metrics: Array<{ value: string; labels: Record<string, string> }>;
      }>;
      const reloads = families.find((f) => f.name === 'plant_store_token_reloads_total')?.metrics ?? [];
      expect(Object.fromEntries(reloads.map((m) => [m.labels.outcome, Number(m.value)]))).toEqual({ ok: 1, failed: 1 });
      const entries = families.find((f) => f.name === 'plant_store_token_entries')?.metrics[0]?.value;
      expect(Number(entries)).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses tokens and tokenFile together, and reloadTokens() without a file', async () => {
    await expect(serve({ tokens: ['a'], tokenFile: '/nonexistent' })).rejects.toThrow(TypeError);
    const server = await serve();
    await expect(server.reloadTokens()).rejects.toThrow(TypeError);
  });
});
