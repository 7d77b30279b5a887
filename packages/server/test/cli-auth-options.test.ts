// The CLI's authentication and limit flags and their variables, in process: what reaches the server's
// options, and the usage errors (exit 2) for contradictory, unsafe or malformed values. What the server
// checks itself (a token file's entries, a JWKS URL, the algorithms beside a JWKS) is refused when it
// starts with these options, as cli.ts starts it: a TypeError or RangeError exits 2, any other error 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseCli, USAGE, UsageError } from '../src/internal/cli-options.js';
import { startPlantStoreServer } from '../src/index.js';

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
  const notSet = join(dir, 'not-set.json');
  writeFileSync(notSet, '{"kty":"EC"}');
  expect(usage(['--jwks', notSet, '--jwt-issuer', 'i', '--jwt-audience', 'a'])).toMatch(/not a JWK Set/);
  expect(
    usage(['--jwks', jwksFile, '--jwt-issuer', 'i', '--jwt-audience', 'a', '--jwt-clock-tolerance', '1h']),
  ).toMatch(/--jwt-clock-tolerance must be a whole number/);
});

it('refuses to start with HS256 beside a JWKS, or a JWKS URL in plain http off this machine', async () => {
  const claims = ['--jwt-issuer', 'i', '--jwt-audience', 'a'];
  const hs256 = await startError(['--jwks', jwksFile, ...claims, '--jwt-algorithms', 'HS256']);
  expect(hs256).toBeInstanceOf(TypeError);
  expect(hs256.message).toMatch(/"HS256" is not one of .*; HS256\/384\/512 need a secret instead of a JWKS/);
  const http = await startError(['--jwks', 'http://idp.example/jwks.json', ...claims]);
  expect(http).toBeInstanceOf(TypeError);
  expect(http.message).toMatch(/must be an https URL/);
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
