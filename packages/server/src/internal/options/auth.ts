// The options of authentication and limits: tokens, JWTs, rate limits and trusted proxies. A part of
// the option table (options/table.ts).
import { checkAppOption, DEFAULT_JWT_ALGORITHMS, DEFAULT_JWT_CLOCK_TOLERANCE } from '@plant-store/core';
import { checkTrustProxy, DEFAULT_TRUST_PROXY } from '../option-checks.js';
import { checked, commaList, decimal, integer, list, onOff, rate, text } from './readers.js';
import { field, type Need, option } from './spec.js';
import { jwks, secretFile, tokens } from './values.js';

const JWT_CLAIMS = () => 'JWTs need --jwt-issuer and --jwt-audience: a token minted for another service must not pass';
const WITH_JWT_CLAIMS: readonly Need[] = [
  { anyOf: ['jwt-issuer'], message: JWT_CLAIMS },
  { anyOf: ['jwt-audience'], message: JWT_CLAIMS },
];
const WITH_JWT_KEYS: readonly Need[] = [{ anyOf: ['jwks', 'jwt-secret-file'] }];
const strings = () => list((items) => [...items]);

export const AUTH_OPTIONS = {
  token: option({
    group: 'auth',
    env: 'PLANT_STORE_TOKENS',
    value: '<t>',
    reader: tokens(),
    default: 'one random token, printed at start',
    help: 'an accepted bearer token, or `sha256:` and its hex digest; for development: every local user in `ps` sees a flag; a service takes `--token-file`',
    api: "`tokens: ['t']`",
    into: field('server', 'tokens'),
    alternativeTo: ['any-token'],
  }),
  'any-token': option({
    group: 'auth',
    env: 'PLANT_STORE_ANY_TOKEN',
    reader: onOff(),
    default: 'off',
    help: 'accept every well-formed bearer token',
    api: "`tokens: 'any'`",
    into: (draft, on) => {
      if (on) draft.server.tokens = 'any';
    },
    excludes: {
      options: ['jwks', 'jwt-secret-file'],
      message: '--any-token accepts every token: it cannot go with JWTs',
    },
  }),
  'token-file': option({
    group: 'auth',
    env: 'PLANT_STORE_TOKEN_FILE',
    value: '<path>',
    reader: text(),
    default: 'none',
    help: 'accepted tokens, one per line: a token or `sha256:<hex>` of one; `#` comments. SIGHUP re-reads it (every worker); a bad file fails the start, and on a reload keeps the tokens as they were and logs an error',
    api: '`tokenFile`',
    into: field('server', 'tokenFile'),
    alternativeTo: ['token', 'any-token'],
  }),
  jwks: option({
    group: 'auth',
    env: 'PLANT_STORE_JWKS',
    value: '<file|url>',
    reader: jwks(),
    default: 'off',
    help: 'accept JWTs signed by these keys: a JWK Set file, or its https URL (http only to localhost)',
    api: '`auth.jwt.jwks` (URL or `{ keys }`)',
    into: field('jwt', 'jwks'),
    needs: WITH_JWT_CLAIMS,
    excludes: { options: ['jwt-secret-file'] },
  }),
  'jwt-issuer': option({
    group: 'auth',
    env: 'PLANT_STORE_JWT_ISSUER',
    value: '<iss>',
    reader: strings(),
    help: 'an accepted `iss`',
    api: '`auth.jwt.issuer`',
    into: field('jwt', 'issuer'),
    needs: WITH_JWT_KEYS,
  }),
  'jwt-audience': option({
    group: 'auth',
    env: 'PLANT_STORE_JWT_AUDIENCE',
    value: '<aud>',
    reader: strings(),
    help: 'an accepted `aud`',
    api: '`auth.jwt.audience`',
    into: field('jwt', 'audience'),
    needs: WITH_JWT_KEYS,
  }),
  'jwt-algorithms': option({
    group: 'auth',
    env: 'PLANT_STORE_JWT_ALGORITHMS',
    value: '<a,b>',
    reader: commaList(),
    default: `\`${DEFAULT_JWT_ALGORITHMS.join(',')}\``,
    help: 'the accepted algorithms; never `none`; HS256/384/512 only with `--jwt-secret-file`',
    api: '`auth.jwt.algorithms`',
    into: field('jwt', 'algorithms'),
    needs: WITH_JWT_KEYS,
  }),
  'jwt-secret-file': option({
    group: 'auth',
    env: 'PLANT_STORE_JWT_SECRET_FILE',
    value: '<path>',
    reader: secretFile(),
    default: 'none',
    help: 'an HMAC secret (32 bytes or more) for HS256/384/512 JWTs instead of `--jwks`; a trailing newline is not part of it',
    api: '`auth.jwt.secret`',
    into: field('jwt', 'secret'),
    needs: WITH_JWT_CLAIMS,
  }),
  'jwt-clock-tolerance': option({
    group: 'auth',
    env: 'PLANT_STORE_JWT_CLOCK_TOLERANCE',
    value: '<s>',
    reader: checked(decimal('a number of seconds'), (seconds) => checkAppOption('auth.jwt.clockTolerance', seconds)),
    default: `\`${DEFAULT_JWT_CLOCK_TOLERANCE}\``,
    help: 'leeway for `exp`, `nbf` and `iat`, in seconds',
    api: '`auth.jwt.clockTolerance`',
    into: field('jwt', 'clockTolerance'),
    needs: WITH_JWT_KEYS,
  }),
  'rate-limit': option({
    group: 'auth',
    env: 'PLANT_STORE_RATE_LIMIT',
    value: '<n>/<s>',
    reader: checked(rate(), (limit) => checkAppOption('auth.rateLimit', limit)),
    default: 'none',
    help: 'requests per credential (token entry or JWT `sub`) in `s` seconds (a fraction too: `1/0.5`), per process: with `--workers k`, up to k × n in all; over it 429 `42901`',
    api: '`auth.rateLimit: { requests, seconds }`',
    into: field('auth', 'rateLimit'),
  }),
  'failed-auth-limit': option({
    group: 'auth',
    env: 'PLANT_STORE_FAILED_AUTH_LIMIT',
    value: '<n>/<s>',
    reader: checked(rate(), (limit) => checkAppOption('auth.failedAuthLimit', limit)),
    default: 'none',
    help: 'refused tokens per client address; over it every request from there gets 429 until it refills',
    api: '`auth.failedAuthLimit`',
    into: field('auth', 'failedAuthLimit'),
  }),
  'trust-proxy': option({
    group: 'auth',
    env: 'PLANT_STORE_TRUST_PROXY',
    value: '<hops>',
    reader: checked(integer({ unit: 'a whole number of proxies' }), checkTrustProxy),
    default: `\`${DEFAULT_TRUST_PROXY}\`: the socket's peer`,
    help: 'proxies whose `X-Forwarded-For` to believe for the client address: the entry that many from the right',
    api: '`trustProxy`',
    into: field('server', 'trustProxy'),
  }),
};
