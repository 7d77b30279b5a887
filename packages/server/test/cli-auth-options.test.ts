// The CLI's authentication and limit flags and their variables, in process: what reaches the server's
// options, and the usage errors (exit 2) for contradictory, unsafe or malformed values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseCli, UsageError } from '../src/internal/cli-options.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const jwksFile = join(dir, 'jwks.json');
writeFileSync(jwksFile, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k' }] }));

const start = (argv: string[], env: Record<string, string> = {}) => {
  const command = parseCli(argv, env);
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  return command.options;
};
const usage = (argv: string[], env: Record<string, string> = {}) => {
  try {
    parseCli(argv, env);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
};

it('reads --token-file and PLANT_STORE_TOKEN_FILE, the flag winning, and refuses it beside --token', () => {
  expect(start(['--token-file', '/etc/t']).tokenFile).toBe('/etc/t');
  expect(start([], { PLANT_STORE_TOKEN_FILE: '/etc/v' }).tokenFile).toBe('/etc/v');
  expect(start(['--token-file', '/etc/t'], { PLANT_STORE_TOKEN_FILE: '/etc/v' }).tokenFile).toBe('/etc/t');
  expect(start(['--token-file', '/etc/t'], { PLANT_STORE_TOKENS: 'a,b' }).tokens).toBeUndefined();
  expect(usage(['--token-file', '/etc/t', '--token', 'a'])).toMatch(/either --token-file or --token/);
  expect(usage(['--token-file', '/etc/t', '--any-token'])).toMatch(/either --token-file/);
});

it('reads the JWT flags and variables into auth.jwt, the JWKS file read and a URL kept', () => {
  expect(
    start(['--jwks', jwksFile, '--jwt-issuer', 'https://i/', '--jwt-audience', 'a', '--jwt-audience', 'b']).auth,
  ).toEqual({
    jwt: {
      issuer: ['https://i/'],
      audience: ['a', 'b'],
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k' }] },
    },
  });
  expect(
    start([], {
      PLANT_STORE_JWKS: 'https://idp.example/jwks.json',
      PLANT_STORE_JWT_ISSUER: 'https://i/, https://j/',
      PLANT_STORE_JWT_AUDIENCE: 'a',
      PLANT_STORE_JWT_ALGORITHMS: 'ES256, RS256',
      PLANT_STORE_JWT_CLOCK_TOLERANCE: '5',
    }).auth,
  ).toEqual({
    jwt: {
      issuer: ['https://i/', 'https://j/'],
      audience: ['a'],
      jwks: 'https://idp.example/jwks.json',
      algorithms: ['ES256', 'RS256'],
      clockTolerance: 5,
    },
  });
});

it('refuses JWT flags that are incomplete, contradictory or unreadable', () => {
  expect(usage(['--jwks', jwksFile, '--jwt-issuer', 'i'])).toMatch(/--jwt-issuer and --jwt-audience/);
  expect(usage(['--jwt-issuer', 'i'])).toMatch(/--jwt-issuer goes with --jwks/);
  expect(
    usage(['--jwks', jwksFile, '--jwt-secret-file', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a']),
  ).toMatch(/either --jwks or --jwt-secret-file/);
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, 'keys:');
  expect(usage(['--jwks', notJson, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toMatch(/not JSON/);
  const notSet = join(dir, 'not-set.json');
  writeFileSync(notSet, '{"kty":"EC"}');
  expect(usage(['--jwks', notSet, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toMatch(/not a JWK Set/);
  expect(
    usage(['--jwks', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a', '--jwt-clock-tolerance', '1h']),
  ).toMatch(/--jwt-clock-tolerance must be a whole number/);
});

it('reads a JWT secret file without its trailing newline', () => {
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'a-shared-secret-of-at-least-32-bytes!\r\n');
  const jwt = start([
    '--jwt-secret-file',
    secret,
    '--jwt-algorithms',
    'HS256',
    '--jwt-issuer',
    'i',
    '--jwt-audience',
    'a',
  ]).auth?.jwt;
  expect(new TextDecoder().decode(jwt?.secret as Uint8Array)).toBe('a-shared-secret-of-at-least-32-bytes!');
});

it('reads --rate-limit, --failed-auth-limit and --trust-proxy and their variables', () => {
  expect(start(['--rate-limit', '100/1', '--failed-auth-limit', '20 / 60', '--trust-proxy', '2'])).toMatchObject({
    auth: { rateLimit: { requests: 100, seconds: 1 }, failedAuthLimit: { requests: 20, seconds: 60 } },
    trustProxy: 2,
  });
  expect(
    start([], { PLANT_STORE_RATE_LIMIT: '5/10', PLANT_STORE_FAILED_AUTH_LIMIT: '3/600', PLANT_STORE_TRUST_PROXY: '1' }),
  ).toMatchObject({
    auth: { rateLimit: { requests: 5, seconds: 10 }, failedAuthLimit: { requests: 3, seconds: 600 } },
    trustProxy: 1,
  });
  expect(start([]).auth).toBeUndefined();
});

it('refuses rates and hop counts that are not whole numbers in range, naming the flag or variable', () => {
  for (const rate of ['100', '0/1', '1/0', '1.5/1', '1/100000', 'ten/1']) {
    expect(usage(['--rate-limit', rate])).toMatch(/--rate-limit must be <requests>\/<seconds>/);
  }
  expect(usage([], { PLANT_STORE_FAILED_AUTH_LIMIT: 'lots' })).toMatch(/PLANT_STORE_FAILED_AUTH_LIMIT must be/);
  expect(usage(['--trust-proxy', 'yes'])).toMatch(/--trust-proxy must be a whole number from 0 to 32/);
  expect(usage(['--trust-proxy', '33'])).toMatch(/--trust-proxy/);
});
