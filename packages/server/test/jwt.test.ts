// JWT bearer tokens on the real server, against a real JWKS endpoint on 127.0.0.1, with tokens this
// suite signs: the valid one, and every hostile case an identity provider's tokens meet in the wild.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient, PlantStoreApiError } from '@plant-store/client';
import { listening, run } from './cli-process.js';
import { serve } from './helpers.js';

const ISSUER = 'https://idp.example/';
const AUDIENCE = 'plant-store';
const STATIC = 'static-token-beside-jwts';

let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
let ec: Awaited<ReturnType<typeof generateKeyPair>>;
let other: Awaited<ReturnType<typeof generateKeyPair>>;
let publicJwks: { keys: JWK[] };

/** A JWKS endpoint whose behaviour each test sets: serving, down (500), or never answering. */
const jwks = { mode: 'up' as 'up' | 'down' | 'hang', fetches: 0, server: undefined as Server | undefined, url: '' };

beforeAll(async () => {
  rsa = await generateKeyPair('RS256', { extractable: true });
  ec = await generateKeyPair('ES256', { extractable: true });
  other = await generateKeyPair('RS256', { extractable: true });
  publicJwks = {
    keys: [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ],
  };
  jwks.server = createServer((_req, res) => {
    jwks.fetches++;
    if (jwks.mode === 'hang') return; // never answers: the verifier's timeout must end the wait
    if (jwks.mode === 'down') {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(publicJwks));
  });
  await new Promise<void>((resolve) => jwks.server!.listen(0, '127.0.0.1', resolve));
  const address = jwks.server.address();
  jwks.url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/jwks.json`;
});
afterAll(async () => {
  jwks.server?.closeAllConnections();
  await new Promise((resolve) => jwks.server?.close(resolve));
});

const now = () => Math.floor(Date.now() / 1000);

/** A token signed with `key` (the RSA key by default), with the claims a valid one has unless changed. */
async function sign(
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  key: CryptoKey | Uint8Array = rsa.privateKey,
  signOptions: { crit?: Record<string, boolean> } = {},
): Promise<string> {
  const base = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat: now(), exp: now() + 300, ...claims };
  for (const [name, value] of Object.entries(base))
    if (value === undefined) delete (base as Record<string, unknown>)[name];
  return new SignJWT(base)
    .setProtectedHeader({ alg: 'RS256', kid: 'rsa-1', ...header } as never)
    .sign(key, signOptions);
}

/** `alg: none`: a header and payload with an empty signature, as an attacker writes it by hand. */
function unsigned(claims: Record<string, unknown> = {}): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: ISSUER, aud: AUDIENCE, sub: 'user-1', exp: now() + 300, ...claims })}.`;
}

interface Answer {
  readonly status: number;
  readonly error?: number;
  readonly challenge: string | null;
  readonly retryAfter: string | null;
  readonly text: string;
}

let nextId = 1;
async function create(url: string, token: string): Promise<Answer> {
  const res = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  const text = await res.text();
  return {
    status: res.status,
    error: (JSON.parse(text) as { error?: number }).error,
    challenge: res.headers.get('www-authenticate'),
    retryAfter: res.headers.get('retry-after'),
    text,
  };
}

const jwtServer = (jwt: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  serve({
    tokens: [STATIC],
    auth: { jwt: { jwks: jwks.url, issuer: ISSUER, audience: AUDIENCE, jwksTimeout: 500, ...jwt } },
    ...extra,
  });

describe('JWT bearer tokens', () => {
  const refused = (reason: string) => ({
    status: 401,
    error: 40102,
    challenge: `Bearer realm="plant-store", error="invalid_token", error_description="${reason}"`,
  });

  it('answers each hostile token with its reason class, and never echoes a token', async () => {
    jwks.mode = 'up';
    const server = await jwtServer({ jwksCooldown: 0 });
    const rsaPem = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    const cases: Array<[string, Promise<string> | string, Partial<Answer>]> = [
      ['a valid RS256 token', sign(), { status: 200 }],
      ['a valid ES256 token', sign({}, { alg: 'ES256', kid: 'ec-1' }, ec.privateKey), { status: 200 }],
      ['a token expired 10 s ago (within the 30 s tolerance)', sign({ exp: now() - 10 }), { status: 200 }],
      ['an expired token', sign({ exp: now() - 120 }), refused('the token has expired')],
      ['a token not valid yet', sign({ nbf: now() + 120 }), refused('the token is not valid yet')],
      [
        'a token from another issuer',
        sign({ iss: 'https://evil.example/' }),
        refused('the token is from another issuer'),
      ],
      ['a token for another audience', sign({ aud: 'another-api' }), refused('the token is for another audience')],
      [
        'a token without exp',
        sign({ exp: undefined }),
        refused('the token lacks a required claim or has an invalid one'),
      ],
      [
        'a token signed by an unknown kid',
        sign({}, { kid: 'rotated-away' }, other.privateKey),
        refused('the key that signed the token is not known'),
      ],
      [
        'a token signed by another key under a known kid',
        sign({}, {}, other.privateKey),
        refused('the signature of the token does not verify'),
      ],
      ['alg: none', unsigned(), refused('the algorithm of the token is not accepted')],
      [
        'HS256 signed with the RSA public key (key confusion)',
        sign({}, { alg: 'HS256' }, rsaPem),
        refused('the algorithm of the token is not accepted'),
      ],
      [
        'a crit header the service does not know',
        sign({}, { crit: ['x-extension'], 'x-extension': 1 }, rsa.privateKey, { crit: { 'x-extension': true } }),
        refused('the token has a critical header or a form this service does not support'),
      ],
      ['an oversized token (9 KiB)', sign({ padding: 'x'.repeat(9000) }), refused('the token is too long')],
      ['a JWE-shaped token (five parts)', 'a.b.c.d.e', { status: 401, error: 40102 }],
      ['the static token, accepted beside JWTs', STATIC, { status: 200 }],
    ];
    const report: string[] = [];
    for (const [name, token, want] of cases) {
      const value = await token;
      const answer = await create(server.url, value);
      report.push(
        `${name}: ${answer.status}${answer.error === undefined ? '' : ` ${answer.error}`} ${answer.challenge ?? ''}`,
      );
      expect({ name, ...answer }).toMatchObject({ name, ...want });
      // The token never comes back, nor its payload.
      expect(answer.text).not.toContain(value);
      expect(answer.challenge ?? '').not.toContain(value.slice(0, 20));
    }
    console.info(`JWT cases against a JWKS on 127.0.0.1:\n${report.join('\n')}`);
  });

  it('serves a token verified before from its cache, and never a token that only ends the same', async () => {
    jwks.mode = 'up';
    // JWTs alone: the cache is asked before the token's form is checked.
    const server = await serve({ auth: { jwt: { jwks: jwks.url, issuer: ISSUER, audience: AUDIENCE } } });
    const token = await sign({ sub: 'user-1' });
    for (const _ of [1, 2, 3]) expect((await create(server.url, token)).status).toBe(200);
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(
      JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', iat: now(), exp: now() + 300 }),
    ).toString('base64url');
    // The same signature, so the same ending: another token all the same.
    expect(await create(server.url, `${header}.${payload}.${signature}`)).toMatchObject(
      refused('the signature of the token does not verify'),
    );
    // A byte of the signature changed (its middle: the last character also carries padding bits).
    const at = token.length - 40;
    const flipped = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    expect(await create(server.url, flipped)).toMatchObject(refused('the signature of the token does not verify'));
    expect((await create(server.url, token)).status).toBe(200);
    expect(await create(server.url, 'not a token at all')).toMatchObject({ status: 401, error: 40102 });
  });

  it('answers 503 with Retry-After (50302), not 401, when the JWKS is down and the key is not cached', async () => {
    jwks.mode = 'down';
    const server = await jwtServer({ retryAfter: 3 });
    const answer = await create(server.url, await sign());
    expect(answer).toMatchObject({ status: 503, error: 50302, retryAfter: '3' });
    // Within Retry-After the answer comes without another fetch.
    const fetches = jwks.fetches;
    expect(await create(server.url, await sign())).toMatchObject({ status: 503, error: 50302 });
    expect(jwks.fetches).toBe(fetches);
    // Static tokens are not held up by the identity provider's outage.
    expect((await create(server.url, STATIC)).status).toBe(200);
  });

  it('answers 503 when the JWKS does not answer within jwksTimeout', async () => {
    jwks.mode = 'hang';
    const server = await jwtServer({ jwksTimeout: 300 });
    expect(await create(server.url, await sign())).toMatchObject({ status: 503, error: 50302 });
    jwks.mode = 'up';
  });

  it('keeps accepting tokens whose key it fetched before while the JWKS is down, and refuses unknown kids with 503', async () => {
    jwks.mode = 'up';
    // Keys never fresh: every verification would fetch, so the outage is met on the next token.
    const server = await jwtServer({ jwksMaxAge: 0, jwksCooldown: 0 });
    expect((await create(server.url, await sign({ sub: 'a' }))).status).toBe(200);
    jwks.mode = 'down';
    expect((await create(server.url, await sign({ sub: 'b' }))).status).toBe(200);
    const unknown = await create(server.url, await sign({ sub: 'c' }, { kid: 'new-key' }, other.privateKey));
    expect(unknown).toMatchObject({ status: 503, error: 50302 });
    jwks.mode = 'up';
  });

  it('fetches the JWKS again for an unknown kid only after the cooldown', async () => {
    jwks.mode = 'up';
    const server = await jwtServer({ jwksCooldown: 60_000 });
    expect((await create(server.url, await sign())).status).toBe(200);
    const fetches = jwks.fetches;
    for (let i = 0; i < 5; i++) {
      const answer = await create(server.url, await sign({ sub: `u${i}` }, { kid: `unknown-${i}` }, other.privateKey));
      expect(answer.status).toBe(401);
    }
    expect(jwks.fetches).toBe(fetches);
  });

  it('verifies a token once and accepts it again until it expires, without a fetch', async () => {
    jwks.mode = 'up';
    const server = await jwtServer({ jwksMaxAge: 0 });
    const token = await sign();
    expect((await create(server.url, token)).status).toBe(200);
    const fetches = jwks.fetches;
    jwks.mode = 'down';
    for (let i = 0; i < 3; i++) expect((await create(server.url, token)).status).toBe(200);
    expect(jwks.fetches).toBe(fetches);
    jwks.mode = 'up';
  });

  it('limits requests per JWT subject (429, 42901, Retry-After), each subject apart', async () => {
    const limited = await serve({
      auth: {
        jwt: { jwks: publicJwks, issuer: ISSUER, audience: AUDIENCE },
        rateLimit: { requests: 2, seconds: 60 },
      },
    });
    const alice = await sign({ sub: 'alice' });
    const alice2 = await sign({ sub: 'alice', jti: 'another-token' });
    expect((await create(limited.url, alice)).status).toBe(200);
    expect((await create(limited.url, alice2)).status).toBe(200);
    const over = await create(limited.url, alice);
    expect(over).toMatchObject({ status: 429, error: 42901 });
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await create(limited.url, await sign({ sub: 'bob' }))).status).toBe(200);
  });

  it('refuses to start with options that would accept forged tokens', async () => {
    const bad = [
      { jwks: jwks.url, issuer: ISSUER, audience: AUDIENCE, algorithms: ['none'] },
      { jwks: jwks.url, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] },
      { jwks: 'http://idp.example/jwks.json', issuer: ISSUER, audience: AUDIENCE },
      { jwks: jwks.url, issuer: ISSUER },
      { jwks: jwks.url, audience: AUDIENCE },
      { secret: 'x'.repeat(40), issuer: ISSUER, audience: AUDIENCE },
      { secret: 'short', issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] },
    ];
    for (const jwt of bad) {
      await expect(serve({ auth: { jwt: jwt as never } }), JSON.stringify(jwt)).rejects.toThrow(TypeError);
    }
  });

  it('accepts HS256 with a secret when asked to, and nothing else with it', async () => {
    const secret = 'a-shared-secret-of-at-least-32-bytes!';
    const server = await serve({
      auth: { jwt: { secret, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] } },
    });
    expect((await create(server.url, await sign({}, { alg: 'HS256' }, new TextEncoder().encode(secret)))).status).toBe(
      200,
    );
    expect(await create(server.url, await sign())).toMatchObject(refused('the algorithm of the token is not accepted'));
  });
});

describe('the CLI with JWTs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-jwt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves with --token-file, --jwks <file>, --jwt-issuer, --jwt-audience and --rate-limit 100/1', async () => {
    writeFileSync(join(dir, 'tokens.txt'), `${STATIC}\n`);
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify(publicJwks));
    const cli = run([
      '--port',
      '0',
      '--token-file',
      join(dir, 'tokens.txt'),
      '--jwks',
      join(dir, 'jwks.json'),
      '--jwt-issuer',
      ISSUER,
      '--jwt-audience',
      'another-api',
      '--jwt-audience',
      AUDIENCE,
      '--rate-limit',
      '100/1',
    ]);
    const url = await listening(cli);
    expect(cli.stdout).toContain(`JWTs from ${ISSUER}`);
    expect((await create(url, await sign())).status).toBe(200);
    expect((await create(url, STATIC)).status).toBe(200);
    expect((await create(url, await sign({ exp: now() - 120 }))).status).toBe(401);
  });

  it('takes an HS256 secret from --jwt-secret-file', async () => {
    const secret = 'another-shared-secret-32-bytes-long';
    writeFileSync(join(dir, 'secret'), `${secret}\n`);
    const cli = run([
      '--port',
      '0',
      '--jwt-secret-file',
      join(dir, 'secret'),
      '--jwt-algorithms',
      'HS256',
      '--jwt-issuer',
      ISSUER,
      '--jwt-audience',
      AUDIENCE,
    ]);
    const url = await listening(cli);
    expect((await create(url, await sign({}, { alg: 'HS256' }, new TextEncoder().encode(secret)))).status).toBe(200);
    expect((await create(url, 'not-a-jwt')).status).toBe(401);
  });
});

describe("the client's retry of 429", () => {
  it('retries a create refused with 429 after Retry-After, and it then succeeds', async () => {
    const server = await serve({ tokens: ['limited-token'], auth: { rateLimit: { requests: 1, seconds: 1 } } });
    const client = createPlantStoreClient({ baseUrl: server.url, timeout: 20_000 });
    const statuses: number[] = [];
    const seen = createPlantStoreClient({
      baseUrl: server.url,
      timeout: 20_000,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      },
    });
    expect(await client.createPlant('limited-token', { id: 1, name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(await seen.createPlant('limited-token', { id: 2, name: 'Oak' })).toEqual({ name: 'Oak' });
    expect(statuses[0]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
  });

  it('gives up with the 42901 error when the limit holds through every retry', async () => {
    const server = await serve({ tokens: ['limited-token'], auth: { rateLimit: { requests: 1, seconds: 3600 } } });
    const client = createPlantStoreClient({ baseUrl: server.url, timeout: 20_000, retries: 0 });
    await client.createPlant('limited-token', { id: 1, name: 'Fern' });
    const error = await client.createPlant('limited-token', { id: 2, name: 'Oak' }).catch((e: unknown) => e);
    expect(PlantStoreApiError.is(error) && error.code).toBe(42901);
  });
});
