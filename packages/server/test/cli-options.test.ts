// The CLI's reading of flags and environment, in process: every option, precedence, and the
// usage errors that make the command exit with code 2 (cli.ts prints the message of a UsageError as it
// is, after "plant-store-server: "). A value the API has a rule for (a port, the body limit, the log
// level) is held to that rule as the CLI reads it; a value whose form the server checks only when it
// starts is refused then, with a TypeError that cli.ts also answers with exit code 2.
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_HOST,
  DEFAULT_JWT_ALGORITHMS,
  DEFAULT_JWT_CLOCK_TOLERANCE,
  DEFAULT_PORT,
} from '@plant-store/core';
import { expect, it } from 'vitest';
import { UsageError, parseCli } from '../src/internal/cli-options.js';
import { DEFAULT_LOG_LEVEL } from '../src/internal/logger.js';
import { DEFAULT_TRUST_PROXY } from '../src/internal/option-checks.js';
import { checked, integer, size, sizeText } from '../src/internal/options/readers.js';
import { ENTRIES, OPTIONS, type OptionName } from '../src/internal/options/table.js';
import { startPlantStoreServer } from '../src/index.js';
import { type Case, cliRefusal, expectOneRule, flagRule } from './option-rules.js';

const start = (argv: string[], env: Record<string, string> = {}) => {
  const command = parseCli(argv, env);
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  // The store is the CLI's own choice (it opens it); the rest are the server's options.
  return command.store.kind === 'file' ? { ...command.options, data: command.store.path } : command.options;
};

const storeOf = (argv: string[], env: Record<string, string> = {}) => {
  const command = parseCli(argv, env);
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  return command.store;
};

const URL_ = 'postgres://plants:s3cret@db.example:5432/plants';

it('keeps plants in memory unless --data or --database says otherwise', () => {
  expect(storeOf([])).toEqual({ kind: 'memory' });
});

it('reads --database and --database-wait, and their variables, the flag winning', () => {
  expect(storeOf(['--database', URL_])).toEqual({ kind: 'postgres', connectionString: URL_ });
  expect(storeOf(['--database', URL_, '--database-wait', '30'])).toEqual({
    kind: 'postgres',
    connectionString: URL_,
    startTimeout: 30_000,
  });
  expect(storeOf([], { PLANT_STORE_DATABASE_URL: URL_, PLANT_STORE_DATABASE_WAIT: '0' })).toEqual({
    kind: 'postgres',
    connectionString: URL_,
    startTimeout: 0,
  });
  expect(storeOf(['--database', 'postgresql://h/db'], { PLANT_STORE_DATABASE_URL: URL_ })).toEqual({
    kind: 'postgres',
    connectionString: 'postgresql://h/db',
  });
});

it('refuses --data with --database, naming the import instead and not the password', () => {
  expect(() => parseCli(['--data', 'plants.log', '--database', URL_], {})).toThrow(
    /either --data .* or --database .*import/,
  );
  expect(() => parseCli(['--data', 'plants.log'], { PLANT_STORE_DATABASE_URL: URL_ })).toThrow(UsageError);
  expect(() => parseCli(['--data', 'plants.log', '--database', URL_], {})).toThrow(
    expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
  );
});

it('refuses a --database that is not a postgres URL without quoting it (it may hold a password)', () => {
  for (const bad of ['mysql://u:s3cret@h/db', 's3cret', 'postgres://u:s3cret@[bad']) {
    let message = '';
    try {
      parseCli(['--database', bad], {});
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/--database must be a URL/);
    expect(message).not.toContain('s3cret');
  }
});

it('refuses a --database-wait that is not whole seconds, and one without --database', () => {
  expect(() => parseCli(['--database', URL_, '--database-wait', '1.5'], {})).toThrow(/whole number of seconds/);
  expect(() => parseCli(['--database-wait', '5'], {})).toThrow(/goes with --database/);
});

it('reads the import command: both stores named, nothing else', () => {
  expect(parseCli(['import', '--data', 'plants.log', '--database', URL_], {})).toEqual({
    kind: 'import',
    from: { kind: 'file', path: 'plants.log' },
    to: { kind: 'postgres', connectionString: URL_ },
  });
  expect(() => parseCli(['import', '--data', 'plants.log'], {})).toThrow(/import needs --data .* and --database/);
  expect(() => parseCli(['import', '--data', 'p.log', '--database', URL_, '--port', '1'], {})).toThrow(/not --port/);
});

it('starts with no options at all, leaving every default to the server', () => {
  expect(start([])).toEqual({});
});

it('reads every flag', () => {
  expect(
    start([
      '--port',
      '8080',
      '--host',
      '0.0.0.0',
      '--token',
      'a',
      '--token',
      'b',
      '--base-path',
      '/api',
      '--body-limit',
      '64k',
      '--cors',
      'https://a.example',
      '--cors',
      'https://b.example',
      '--data',
      'plants.log',
      '--log',
    ]),
  ).toEqual({
    port: 8080,
    host: '0.0.0.0',
    tokens: ['a', 'b'],
    basePath: '/api',
    bodyLimit: 65_536,
    cors: ['https://a.example', 'https://b.example'],
    data: 'plants.log',
    log: true,
  });
});

it('reads every environment variable', () => {
  expect(
    start([], {
      PLANT_STORE_PORT: '0',
      PLANT_STORE_HOST: '::1',
      PLANT_STORE_TOKENS: 'a, b',
      PLANT_STORE_BASE_PATH: '/v1',
      PLANT_STORE_BODY_LIMIT: '2m',
      PLANT_STORE_CORS: '*',
      PLANT_STORE_DATA: '/tmp/p.log',
      PLANT_STORE_LOG: 'true',
    }),
  ).toEqual({
    port: 0,
    host: '::1',
    tokens: ['a', 'b'],
    basePath: '/v1',
    bodyLimit: 2 * 1024 * 1024,
    cors: '*',
    data: '/tmp/p.log',
    log: true,
  });
});

it('lets flags win over environment variables', () => {
  const env = { PLANT_STORE_PORT: '1111', PLANT_STORE_TOKENS: 'from-env', PLANT_STORE_LOG: '1' };
  expect(start(['--port', '2222', '--token', 'from-flag'], env)).toMatchObject({
    port: 2222,
    tokens: ['from-flag'],
    log: true,
  });
  expect(start(['--any-token'], env).tokens).toBe('any');
});

it('lets --token win over PLANT_STORE_ANY_TOKEN instead of refusing the pair', () => {
  expect(start(['--token', 'from-flag'], { PLANT_STORE_ANY_TOKEN: '1' }).tokens).toEqual(['from-flag']);
});

// Regression: the variable was parsed before the flags were looked at, so a malformed one stopped a
// start whose flags had settled the tokens.
it('lets a token flag win over a malformed PLANT_STORE_ANY_TOKEN, which is refused only when read', () => {
  expect(start(['--token', 'q'], { PLANT_STORE_ANY_TOKEN: 'maybe' }).tokens).toEqual(['q']);
  expect(start(['--any-token'], { PLANT_STORE_ANY_TOKEN: 'maybe' }).tokens).toBe('any');
  expect(() => parseCli([], { PLANT_STORE_ANY_TOKEN: 'maybe' })).toThrow(/PLANT_STORE_ANY_TOKEN must be/);
  expect(() => parseCli([], { PLANT_STORE_TOKENS: 'a', PLANT_STORE_ANY_TOKEN: 'maybe' })).toThrow(
    /PLANT_STORE_ANY_TOKEN must be/,
  );
});

// Regression: the pair of variables was taken silently as strict tokens, where the pair of flags is refused.
it('refuses PLANT_STORE_TOKENS with PLANT_STORE_ANY_TOKEN=1, unless a flag settles it', () => {
  const env = { PLANT_STORE_TOKENS: 'a', PLANT_STORE_ANY_TOKEN: '1' };
  expect(() => parseCli([], env)).toThrow(/PLANT_STORE_TOKENS or PLANT_STORE_ANY_TOKEN, not both/);
  expect(start(['--token', 'b'], env).tokens).toEqual(['b']);
  expect(start(['--any-token'], env).tokens).toBe('any');
  expect(start([], { ...env, PLANT_STORE_ANY_TOKEN: '0' }).tokens).toEqual(['a']);
});

it('accepts every token only with --any-token or PLANT_STORE_ANY_TOKEN', () => {
  expect(start(['--any-token']).tokens).toBe('any');
  expect(start([], { PLANT_STORE_ANY_TOKEN: '1' }).tokens).toBe('any');
  expect(start([], { PLANT_STORE_ANY_TOKEN: '0' }).tokens).toBeUndefined();
});

it('takes a token as the core does: token68, or sha256: and its 64 hex digits, so no secret is in argv', () => {
  const hashed = `sha256:${'ab'.repeat(32)}`;
  expect(start(['--token', hashed]).tokens).toEqual([hashed]);
  expect(start([], { PLANT_STORE_TOKENS: `t1,${hashed}` }).tokens).toEqual(['t1', hashed]);
  expect(() => start(['--token', 'sha256:abc'])).toThrow(/--token: every token must be/);
});

it('reads sizes in bytes, k and m (1024-based)', () => {
  expect(start(['--body-limit', '100']).bodyLimit).toBe(100);
  expect(start(['--body-limit', '1K']).bodyLimit).toBe(1024);
  expect(start(['--body-limit', '1mb']).bodyLimit).toBe(1_048_576);
});

it('answers --help and --version (and -h, -v)', () => {
  expect(parseCli(['--help'], {}).kind).toBe('help');
  expect(parseCli(['-h'], {}).kind).toBe('help');
  expect(parseCli(['--version'], {}).kind).toBe('version');
  expect(parseCli(['-v'], {}).kind).toBe('version');
});

it.each([
  [['--prot', '1'], /Unknown option '--prot'/],
  [['extra'], /positional/i],
  [['--port', 'eighty'], /^--port must be a port number, got "eighty"$/],
  [['--port', '80.5'], /^--port must be a port number, got "80.5"$/],
  [['--port', '65536'], /^--port: port must be an integer from 0 to 65535, got 65536$/],
  [['--port', '-1'], /port/],
  [
    ['--body-limit', 'lots'],
    /^--body-limit must be a size in bytes, optionally with k or m \(1024-based\), got "lots"$/,
  ],
  [['--body-limit', '1g'], /--body-limit must be a size in bytes/],
  [['--log-level', 'verbose'], /^--log-level: logLevel must be one of debug, info, warn, error$/],
  [['--token', 'a', '--any-token'], /not both/],
  [['--token', 'has space'], /--token: every token must be a non-empty token68 string/],
  [['--host', ''], /--host/],
  [['--log=yes'], /log/],
])('refuses %j with a usage error', (argv, message) => {
  expect(() => parseCli(argv, {})).toThrow(UsageError);
  expect(() => parseCli(argv, {})).toThrow(message);
});

it('refuses --workers without --database, saying why the workers could not share the plants', () => {
  for (const [argv, why] of [
    [['--workers', '2'], 'plants in memory live in one process'],
    [['--workers', 'auto', '--data', '/tmp/never.log'], 'a --data file is locked by one process'],
  ] as const) {
    expect(() => parseCli(argv, {})).toThrow(UsageError);
    expect(() => parseCli(argv, {})).toThrow(`--workers needs --database: ${why}`);
  }
});

it('leaves the form of the base path to the server, which refuses one with a query when it starts', async () => {
  const command = parseCli(['--port', '0', '--base-path', '/api?x'], {});
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  expect(command.options.basePath).toBe('/api?x');
  // Started as cli.ts starts it: a TypeError there is "could not start: <message>" and exit code 2.
  const refused = await startPlantStoreServer(command.options).then(
    async (server) => {
      await server.close();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(TypeError);
  expect((refused as Error).message).toMatch(/basePath/);
});

it('refuses unusable environment values, naming the variable', () => {
  expect(() => parseCli([], { PLANT_STORE_PORT: 'http' })).toThrow(/PLANT_STORE_PORT/);
  expect(() => parseCli([], { PLANT_STORE_LOG: 'maybe' })).toThrow(/PLANT_STORE_LOG/);
  expect(() => parseCli([], { PLANT_STORE_BODY_LIMIT: '1g' })).toThrow(/PLANT_STORE_BODY_LIMIT/);
});

it('does not repeat a rejected token in its message (it is a secret)', () => {
  expect(() => parseCli(['--token', 'secret value'], {})).toThrow(
    expect.objectContaining({ message: expect.not.stringContaining('secret value') }),
  );
});

it('does not repeat a stray argument, such as a token given to --any-token, in its message', () => {
  expect(() => parseCli(['--any-token', 's3cretToken'], {})).toThrow(UsageError);
  expect(() => parseCli(['--any-token', 's3cretToken'], {})).toThrow(
    expect.objectContaining({ message: expect.not.stringContaining('s3cretToken') }),
  );
});

it('refuses a variable whose option goes with another not given, naming the variables', () => {
  expect(() => parseCli([], { PLANT_STORE_DATABASE_POOL_SIZE: '4' })).toThrow(
    new UsageError('PLANT_STORE_DATABASE_POOL_SIZE goes with PLANT_STORE_DATABASE_URL'),
  );
  expect(() => parseCli([], { PLANT_STORE_OPS_HOST: '0.0.0.0' })).toThrow(
    new UsageError('PLANT_STORE_OPS_HOST goes with PLANT_STORE_OPS_PORT'),
  );
  expect(() => parseCli(['--ops-host', '0.0.0.0'], {})).toThrow(new UsageError('--ops-host goes with --ops-port'));
  expect(start(['--ops-port', '0'], { PLANT_STORE_OPS_HOST: '::1' }).ops).toEqual({ port: 0, host: '::1' });
});

it('refuses a token file and tokens given the same way, and lets a flag beat the other variable', () => {
  expect(() => parseCli([], { PLANT_STORE_TOKEN_FILE: '/etc/t', PLANT_STORE_TOKENS: 'a' })).toThrow(
    new UsageError('set either PLANT_STORE_TOKEN_FILE or PLANT_STORE_TOKENS, not both'),
  );
  expect(start(['--token', 'a'], { PLANT_STORE_TOKEN_FILE: '/etc/t' })).toEqual({ tokens: ['a'] });
  // A switch variable that is off is no token choice at all.
  expect(start([], { PLANT_STORE_TOKEN_FILE: '/etc/t', PLANT_STORE_ANY_TOKEN: '0' })).toEqual({ tokenFile: '/etc/t' });
});

it('has every relation of the option table name an option of the table', () => {
  const names = ENTRIES.map(([name]) => name as string);
  for (const [, spec] of ENTRIES) {
    const related = [
      ...(spec.needs ?? []).flatMap((need) => need.anyOf),
      ...(spec.excludes?.options ?? []),
      ...(spec.alternativeTo ?? []),
    ];
    for (const other of related) expect(names).toContain(other);
  }
});

it("holds --port and --ops-port to the server's rule for a port: the same values taken and refused, in its words", async () => {
  const ports: Case<number>[] = [
    ['0', 0, true],
    ['65535', 65_535, true],
    ['65536', 65_536, false],
    ['99999999999999999999', 1e20, false],
  ];
  await expectOneRule(
    flagRule<number>(
      'port',
      (port) => ({ port }),
      (options) => options.port,
    ),
    ports,
  );
  await expectOneRule(
    flagRule<number>(
      'ops-port',
      (port) => ({ ops: { port } }),
      (options) => options.ops?.port,
    ),
    ports,
  );
});

it("holds --body-limit to the core's rule for bodyLimit: 0 taken, as the API takes it, and no unsafe integer", async () => {
  const sizes: Case<number>[] = [
    ['0', 0, true],
    ['100', 100, true],
    ['512k', 524_288, true],
    ['1m', 1_048_576, true],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER, true],
    [String(2 ** 53), 2 ** 53, false],
    [`${Number.MAX_SAFE_INTEGER}k`, Number.MAX_SAFE_INTEGER * 1024, false],
  ];
  await expectOneRule(
    flagRule<number>(
      'body-limit',
      (bodyLimit) => ({ bodyLimit }),
      (options) => options.bodyLimit,
    ),
    sizes,
  );
});

it("holds PLANT_STORE_LOG_LEVEL to the server's rule for logLevel, naming the variable", async () => {
  type Level = NonNullable<Parameters<typeof startPlantStoreServer>[0]>['logLevel'];
  const levels: Case<Level>[] = [
    ['debug', 'debug', true],
    ['error', 'error', true],
    ['verbose', 'verbose' as Level, false],
    ['INFO', 'INFO' as Level, false],
  ];
  await expectOneRule(
    {
      cli: (text) => ({ argv: [], env: { PLANT_STORE_LOG_LEVEL: text } }),
      source: () => 'PLANT_STORE_LOG_LEVEL',
      api: (logLevel) => ({ logLevel }),
      read: (options) => options.logLevel,
    },
    levels,
  );
});

it('passes on an error of a rule that is not a refusal of the value, not as a usage error', () => {
  const broken = checked(integer({ unit: 'a number' }), () => {
    throw new Error('the rule itself failed');
  });
  expect(() => broken.read('1', '--n')).toThrow(new Error('the rule itself failed'));
  expect(() => broken.read('1', '--n')).not.toThrow(UsageError);
});

it('writes a size as the largest unit --body-limit reads back to the same bytes', () => {
  for (const [bytes, text] of [
    [1_048_576, '1m'],
    [3 * 1_048_576, '3m'],
    [524_288, '512k'],
    [1_048_577, '1048577'],
    [100, '100'],
    [0, '0'],
  ] as const) {
    expect(sizeText(bytes)).toBe(text);
    expect(size().read(text, '--body-limit')).toBe(bytes);
  }
});

it('shows as each default what its flag would have to say to get the default the code applies', () => {
  // The first code span of the table's default, read by the option's own reader.
  const shown = (name: OptionName) => {
    const { default: text, reader } = OPTIONS[name];
    const value = /`([^`]*)`/.exec(text ?? '')?.[1];
    if (value === undefined || reader.takes !== 'text') throw new Error(`--${name} shows no default value`);
    return reader.read(value, `--${name}`);
  };
  expect(shown('port')).toBe(DEFAULT_PORT);
  expect(shown('host')).toBe(DEFAULT_HOST);
  expect(shown('body-limit')).toBe(DEFAULT_BODY_LIMIT);
  expect(shown('log-level')).toBe(DEFAULT_LOG_LEVEL);
  expect(shown('jwt-algorithms')).toEqual(DEFAULT_JWT_ALGORITHMS);
  expect(shown('jwt-clock-tolerance')).toBe(DEFAULT_JWT_CLOCK_TOLERANCE);
  expect(shown('trust-proxy')).toBe(DEFAULT_TRUST_PROXY);
});

it('refuses a port or a size of the wrong form before any rule, quoting it', () => {
  expect(cliRefusal(['--port', ''])).toBe('--port must be a port number, got ""');
  expect(cliRefusal([], { PLANT_STORE_OPS_PORT: 'http' })).toBe(
    'PLANT_STORE_OPS_PORT must be a port number, got "http"',
  );
  expect(cliRefusal(['--body-limit', '1.5m'])).toMatch(/^--body-limit must be a size in bytes/);
});
