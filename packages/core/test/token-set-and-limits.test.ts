import { describe, expect, it } from 'vitest';
import { createPlantStoreApp, createTokenSet, ErrorCode, parseTokenFile } from '../src/index.js';
import { RateLimiter } from '../src/internal/rate-limiter.js';
import { CONTRACT_JWT, JWT_OTHER_AUDIENCE, JWT_VALID } from '../../../test/contract/cases.js';
import { createRequest, read } from './helpers.js';

const sha256 = async (token: string) =>
  `sha256:${Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))).toString('hex')}`;

const withToken = (token: string, id = 1) =>
  createRequest(`{"id":${id},"name":"a"}`, { headers: { authorization: `Bearer ${token}` } });

describe('parseTokenFile', () => {
  it('reads one entry a line, skipping blank lines and # comments, trimming spaces and CRs', () => {
    const hash = `sha256:${'ab'.repeat(32)}`;
    expect(parseTokenFile(`\uFEFF# bots\n\n  token-1  \r\n${hash}\n#token-2\n`)).toEqual(['token-1', hash]);
  });

  it('names the first bad line by number and never quotes it', () => {
    expect(() => parseTokenFile('ok-token\nsecret with spaces\n')).toThrow(/^line 2 is not a token entry/);
    expect(() => parseTokenFile('ok-token\nsecret with spaces\n')).not.toThrow(/secret/);
    expect(() => parseTokenFile(`sha256:${'a'.repeat(63)}\n`)).toThrow(/line 1/);
    expect(() => parseTokenFile('sha256:zz\n')).toThrow(/line 1/);
  });

  it('refuses a file with no entry, so a reload never empties the set', () => {
    expect(() => parseTokenFile('# all commented out\n\n')).toThrow(TypeError);
    expect(() => parseTokenFile('')).toThrow(/no entry/);
  });
});

describe('token sets', () => {
  it('accepts a token given by its SHA-256, in any case of hex, and refuses the hash itself as a token', async () => {
    const entry = await sha256('hashed-secret');
    const app = createPlantStoreApp({ tokens: createTokenSet([entry.toUpperCase().replace('SHA256:', 'sha256:')]) });
    expect((await app.fetch(withToken('hashed-secret'))).status).toBe(200);
    expect((await app.fetch(withToken(entry.slice(7), 2))).status).toBe(401);
    // A plain list takes sha256: entries too.
    const plain = createPlantStoreApp({ tokens: [entry, 'plain-one'] });
    expect((await plain.fetch(withToken('hashed-secret'))).status).toBe(200);
    expect((await plain.fetch(withToken('plain-one', 2))).status).toBe(200);
    expect((await plain.fetch(withToken('other', 3))).status).toBe(401);
  });

  it('switches every request to the new entries at replace(), and keeps the old ones when the new list is bad', async () => {
    const tokens = createTokenSet(['old-token']);
    const app = createPlantStoreApp({ tokens });
    expect((await app.fetch(withToken('old-token', 1))).status).toBe(200);
    tokens.replace(['new-token', await sha256('hashed-new')]);
    expect(tokens.size).toBe(2);
    expect((await app.fetch(withToken('old-token', 2))).status).toBe(401);
    expect((await app.fetch(withToken('new-token', 3))).status).toBe(200);
    expect((await app.fetch(withToken('hashed-new', 4))).status).toBe(200);
    expect(() => tokens.replace([])).toThrow(TypeError);
    expect(() => tokens.replace(['ok', 'not ok'])).toThrow(TypeError);
    expect((await app.fetch(withToken('new-token', 5))).status).toBe(200);
  });

  it('never echoes a hashed token sent as the request id', async () => {
    const app = createPlantStoreApp({ tokens: [await sha256('hashed-secret'), 'plain-one'] });
    const res = await app.fetch(
      createRequest('{"id":1,"name":"a"}', {
        headers: { authorization: 'Bearer plain-one', 'x-request-id': 'hashed-secret' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).not.toBe('hashed-secret');
  });

  it('needs tokens or a JWT: nothing accepted is a TypeError', () => {
    // @ts-expect-error tokens or auth.jwt is required
    expect(() => createPlantStoreApp({})).toThrow(TypeError);
    expect(() => createPlantStoreApp({ tokens: [] })).toThrow(TypeError);
  });
});

describe('rate limits', () => {
  it('answers 429 42901 with Retry-After once a credential is over its limit, each credential apart', async () => {
    const app = createPlantStoreApp({
      tokens: ['a-token', 'b-token'],
      auth: { rateLimit: { requests: 2, seconds: 10 } },
    });
    expect((await app.fetch(withToken('a-token', 1))).status).toBe(200);
    expect((await app.fetch(withToken('a-token', 2))).status).toBe(200);
    const over = await read(await app.fetch(withToken('a-token', 3)));
    expect(over.status).toBe(429);
    expect(over.json.error).toBe(ErrorCode.RATE_LIMITED);
    expect(over.headers.get('retry-after')).toBe('5');
    expect(over.headers.get('cache-control')).toBe('no-store');
    expect((await app.fetch(withToken('b-token', 4))).status).toBe(200);
  });

  it('refuses an address after too many refused tokens, right tokens too, and not the other addresses', async () => {
    const app = createPlantStoreApp({ tokens: ['right'], auth: { failedAuthLimit: { requests: 3, seconds: 60 } } });
    const from = (address: string, token: string, id: number) =>
      app.fetch(withToken(token, id), { clientAddress: address });
    for (let i = 0; i < 3; i++) expect((await from('10.0.0.1', `guess-${i}`, i)).status).toBe(401);
    const blocked = await read(await from('10.0.0.1', 'right', 10));
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toBe(ErrorCode.RATE_LIMITED);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await from('10.0.0.2', 'right', 11)).status).toBe(200);
    // A missing header is no guess: it does not count.
    const noAuth = createRequest('{"id":12,"name":"a"}');
    noAuth.headers.delete('authorization');
    for (let i = 0; i < 5; i++)
      expect((await app.fetch(noAuth.clone(), { clientAddress: '10.0.0.3' })).status).toBe(401);
    expect((await from('10.0.0.3', 'right', 13)).status).toBe(200);
  });

  it('refills a bucket evenly: one request more per seconds / requests', () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ requests: 4, seconds: 2 }, () => now);
    for (let i = 0; i < 4; i++) expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(1);
    now += 499;
    expect(limiter.peek('k')).toBe(1);
    now += 1;
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(1);
    expect(limiter.peek('other')).toBe(0);
  });

  it('keeps its memory bounded under a flood of keys', () => {
    const limiter = new RateLimiter({ requests: 1, seconds: 3600 }, () => 0);
    for (let i = 0; i < 120_000; i++) limiter.take(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    expect(limiter.size).toBeGreaterThan(0);
    expect(limiter.size).toBeLessThanOrEqual(50_000);
  });

  it('refuses limits that are not whole requests over a positive time', () => {
    for (const rateLimit of [
      { requests: 0, seconds: 1 },
      { requests: 1.5, seconds: 1 },
      { requests: 1, seconds: 0 },
      { requests: 1, seconds: Number.NaN },
    ]) {
      expect(() => createPlantStoreApp({ tokens: ['t'], auth: { rateLimit } })).toThrow(TypeError);
      expect(() => createPlantStoreApp({ tokens: ['t'], auth: { failedAuthLimit: rateLimit } })).toThrow(TypeError);
    }
  });
});

describe('safety headers', () => {
  it('sends Cache-Control: no-store and X-Content-Type-Options: nosniff on successes, failures and preflights', async () => {
    const app = createPlantStoreApp({ tokens: ['t'], cors: { origins: ['https://app.example'] } });
    const answers = [
      await app.fetch(withToken('t')),
      await app.fetch(withToken('wrong')),
      await app.fetch(new Request('http://plants.test/nope')),
      await app.fetch(
        new Request('http://plants.test/plants', {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
        }),
      ),
    ];
    for (const res of answers) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('static tokens and JWTs together', () => {
  it('accepts a plain entry, a hashed entry and a JWT, and names why a JWT is refused', async () => {
    const app = createPlantStoreApp({
      tokens: ['plain-one', await sha256('hashed-one'), await sha256('looks.like.jwt')],
      auth: { jwt: CONTRACT_JWT },
    });
    let id = 0;
    const status = async (token: string) => (await app.fetch(withToken(token, ++id))).status;
    expect(await status('plain-one')).toBe(200);
    expect(await status('hashed-one')).toBe(200);
    expect(await status(JWT_VALID)).toBe(200);
    // Again: from the verifier's cache.
    expect(await status(JWT_VALID)).toBe(200);
    // A static token of a JWT's form, given by its hash: refused as a JWT, then found among the hashes.
    expect(await status('looks.like.jwt')).toBe(200);
    const refused = await app.fetch(withToken(JWT_OTHER_AUDIENCE, ++id));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error_description="the token is for another audience"');
    expect(await status('not-a-token-here')).toBe(401);
  });
});
