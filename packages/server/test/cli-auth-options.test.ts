// The CLI's authentication and limit flags and their variables, in process: what reaches the server's
// options, and the usage errors (exit 2) for contradictory, unsafe or malformed values. A value the
// API has a rule for (a rate limit, the clock tolerance, a JWKS, the proxies trusted) is held to that
// rule as the CLI reads it: the same values taken and refused, in the API's words. What the server
// checks only when it starts (a token file's entries, the algorithms beside a JWKS) is refused then,
// as cli.ts starts it: a TypeError or RangeError exits 2, any other error 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RateLimit } from '@plant-store/core';
import { afterAll, expect, it } from 'vitest';
import { parseCli, USAGE, UsageError } from '../src/internal/cli-options.js';
import { startPlantStoreServer } from '../src/index.js';
import { type Case, cliRefusal, expectOneRule, flagRule } from './option-rules.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const JWKS = { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k' }] };
const jwksFile = join(dir, 'jwks.json');
writeFileSync(jwksFile, JSON.stringify(JWKS));

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
/** What starting the server with the options of `argv` throws (a server that starts is closed, and fails the test). */
const startError = async (argv: string[]): Promise<Error> => {
  const options = start(['--port', '0', ...argv]);
  let server: Awaited<ReturnType<typeof startPlantStoreServer>>;
  try {
    server = await startPlantStoreServer(options);
  } catch (error) {
    return error as Error;
  }
  await server.close();
  throw new Error(`the server started with ${argv.join(' ')}`);
};

it('reads --token-file and PLANT_STORE_TOKEN_FILE, the flag winning, and refuses it beside --token', () => {
  expect(start(['--token-file', '/etc/t']).tokenFile).toBe('/etc/t');
  expect(start([], { PLANT_STORE_TOKEN_FILE: '/etc/v' }).tokenFile).toBe('/etc/v');
  expect(start(['--token-file', '/etc/t'], { PLANT_STORE_TOKEN_FILE: '/etc/v' }).tokenFile).toBe('/etc/t');
  expect(start(['--token-file', '/etc/t'], { PLANT_STORE_TOKENS: 'a,b' }).tokens).toBeUndefined();
  expect(usage(['--token-file', '/etc/t', '--token', 'a'])).toMatch(/either --token-file or --token/);
  expect(usage(['--token-file', '/etc/t', '--any-token'])).toMatch(/either --token-file/);
});

it('says in --help that a --token flag is visible to ps, and that SIGHUP re-reads the token file', () => {
  expect(USAGE).toMatch(/every local user in ps/);
  expect(USAGE).toMatch(/SIGHUP re-reads --token-file/);
});

it('refuses to start on a token file with a bad entry, naming the line and not its content', async () => {
  const path = join(dir, 'bad-entry.txt');
  writeFileSync(path, 'good-token\nnot a token\n');
  const error = await startError(['--token-file', path]);
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toContain('line 2 is not a token entry');
  expect(error.message).not.toContain('not a token\n');
});

it('refuses to start on a token file it cannot read (exit 1), or one with no entry (exit 2)', async () => {
  const missing = await startError(['--token-file', join(dir, 'no-such-file')]);
  expect(missing).not.toBeInstanceOf(TypeError);
  expect(missing).not.toBeInstanceOf(RangeError);
  expect(missing.message).toContain('cannot read the token file');
  const path = join(dir, 'no-entry.txt');
  writeFileSync(path, '# nothing yet\n\n');
  const empty = await startError(['--token-file', path]);
  expect(empty).toBeInstanceOf(TypeError);
  expect(empty.message).toContain('no entry');
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
  expect(usage(['--jwks', jwksFile, '--jwt-audience', 'a'])).toMatch(/--jwt-issuer and --jwt-audience/);
  expect(usage(['--any-token', '--jwks', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toBe(
    '--any-token accepts every token: it cannot go with JWTs',
  );
  const missing = join(dir, 'missing.json');
  expect(usage(['--jwks', missing, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toBe(
    `--jwks ${missing}: cannot read it (ENOENT)`,
  );
  expect(usage(['--jwt-issuer', 'i'])).toMatch(/--jwt-issuer goes with --jwks/);
  expect(
    usage(['--jwks', jwksFile, '--jwt-secret-file', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a']),
  ).toMatch(/either --jwks or --jwt-secret-file/);
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, 'keys:');
  expect(usage(['--jwks', notJson, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toMatch(/not JSON/);
  expect(usage(['--jwks', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a', '--jwt-clock-tolerance', '1h'])).toBe(
    '--jwt-clock-tolerance must be a number of seconds, got "1h"',
  );
});

it('refuses to start with HS256 beside a JWKS', async () => {
  const hs256 = await startError([
    '--jwks',
    jwksFile,
    '--jwt-issuer',
    'i',
    '--jwt-audience',
    'a',
    '--jwt-algorithms',
    'HS256',
  ]);
  expect(hs256).toBeInstanceOf(TypeError);
  expect(hs256.message).toMatch(/"HS256" is not one of .*; HS256\/384\/512 need a secret instead of a JWKS/);
});

it("holds --jwks to the core's rule for auth.jwt.jwks: the URLs and JWK Set files it takes, and no other", async () => {
  const notSet = join(dir, 'not-set.json');
  writeFileSync(notSet, '{"kty":"EC"}');
  const keys: Case<string | object>[] = [
    ['https://idp.example/jwks.json', 'https://idp.example/jwks.json', true],
    ['http://localhost:8080/jwks.json', 'http://localhost:8080/jwks.json', true],
    ['http://127.0.0.1/jwks.json', 'http://127.0.0.1/jwks.json', true],
    ['http://idp.example/jwks.json', 'http://idp.example/jwks.json', false],
    [jwksFile, JWKS, true],
    [notSet, { kty: 'EC' }, false],
  ];
  await expectOneRule(
    {
      cli: (text) => ({ argv: ['--jwks', text, '--jwt-issuer', 'i', '--jwt-audience', 'a'] }),
      source: (text) => (text.startsWith('http') ? '--jwks' : `--jwks ${text}`),
      api: (jwks) => ({ auth: { jwt: { jwks: jwks as { keys: object[] }, issuer: 'i', audience: 'a' } } }),
      read: (options) => options.auth?.jwt?.jwks,
    },
    keys,
  );
});

it("holds --jwt-clock-tolerance to the core's rule, fractions of a second included", async () => {
  const tolerances: Case<number>[] = [
    ['0', 0, true],
    ['1.5', 1.5, true],
    ['3600', 3600, true],
    ['3600.5', 3600.5, false],
    ['3601', 3601, false],
  ];
  const claims = ['--jwks', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a'];
  await expectOneRule(
    flagRule<number>(
      'jwt-clock-tolerance',
      (clockTolerance) => ({ auth: { jwt: { jwks: JWKS, issuer: 'i', audience: 'a', clockTolerance } } }),
      (options) => options.auth?.jwt?.clockTolerance,
      claims,
    ),
    tolerances,
  );
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

const rates: Case<RateLimit>[] = [
  ['1/0.5', { requests: 1, seconds: 0.5 }, true],
  ['100/1', { requests: 100, seconds: 1 }, true],
  ['20 / 60', { requests: 20, seconds: 60 }, true],
  ['1/86400', { requests: 1, seconds: 86_400 }, true],
  ['0/1', { requests: 0, seconds: 1 }, false],
  ['1.5/1', { requests: 1.5, seconds: 1 }, false],
  ['99999999999999999/1', { requests: 1e17, seconds: 1 }, false],
  ['1/0', { requests: 1, seconds: 0 }, false],
  ['1/86400.5', { requests: 1, seconds: 86_400.5 }, false],
  ['1/100000', { requests: 1, seconds: 100_000 }, false],
];

it("holds --rate-limit to the core's rule for auth.rateLimit: 1/0.5 taken, as the API takes half a second", async () => {
  await expectOneRule(
    flagRule<RateLimit>(
      'rate-limit',
      (rateLimit) => ({ auth: { rateLimit } }),
      (options) => options.auth?.rateLimit,
    ),
    rates,
  );
});

it("holds PLANT_STORE_FAILED_AUTH_LIMIT to the core's rule for auth.failedAuthLimit, naming the variable", async () => {
  await expectOneRule(
    {
      cli: (text) => ({ argv: [], env: { PLANT_STORE_FAILED_AUTH_LIMIT: text } }),
      source: () => 'PLANT_STORE_FAILED_AUTH_LIMIT',
      api: (failedAuthLimit) => ({ auth: { failedAuthLimit } }),
      read: (options) => options.auth?.failedAuthLimit,
    },
    rates,
  );
});

it("holds --trust-proxy to the server's rule for trustProxy", async () => {
  const hops: Case<number>[] = [
    ['0', 0, true],
    ['32', 32, true],
    ['33', 33, false],
    ['99999999999999999', 1e17, false],
  ];
  await expectOneRule(
    flagRule<number>(
      'trust-proxy',
      (trustProxy) => ({ trustProxy }),
      (options) => options.trustProxy,
    ),
    hops,
  );
});

it('refuses what is not <requests>/<seconds>, or not a number, before any rule, naming the flag or variable', () => {
  for (const rate of ['100', 'ten/1', '1/2/3', '/1', '1/-1', '1e3/1']) {
    expect(cliRefusal(['--rate-limit', rate])).toBe(
      `--rate-limit must be <requests>/<seconds>, e.g. 100/1 or 1/0.5, got ${JSON.stringify(rate)}`,
    );
  }
  expect(cliRefusal([], { PLANT_STORE_FAILED_AUTH_LIMIT: 'lots' })).toBe(
    'PLANT_STORE_FAILED_AUTH_LIMIT must be <requests>/<seconds>, e.g. 100/1 or 1/0.5, got "lots"',
  );
  expect(cliRefusal(['--trust-proxy', 'yes'])).toBe('--trust-proxy must be a whole number of proxies, got "yes"');
  expect(cliRefusal(['--trust-proxy', '1.5'])).toBe('--trust-proxy must be a whole number of proxies, got "1.5"');
});
