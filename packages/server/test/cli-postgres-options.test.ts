// The PostgreSQL store's options on the command line and in the environment, in process: each flag and
// its PLANT_STORE_DATABASE_* variable, the flag winning, and the bad values that exit with code 2 (once
// through the real command).
import { expect, it } from 'vitest';
import { parseCli, USAGE, UsageError } from '../src/internal/cli-options.js';
import { run } from './cli-process.js';

const URL_ = 'postgres://plants:s3cret@db.example:5432/plants';

const storeOf = (argv: string[], env: Record<string, string> = {}) => {
  const command = parseCli(argv, env);
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  return command.store;
};

it('reads every store option from its --database-* flag', () => {
  expect(
    storeOf([
      '--database',
      URL_,
      '--database-pool-size',
      '4',
      '--database-batches',
      '3',
      '--database-statement-timeout',
      '2.5',
      '--database-connect-timeout',
      '750ms',
      '--database-prepared-statements',
      'off',
      '--database-create-table',
      'no',
      '--database-wait',
      '30',
    ]),
  ).toEqual({
    kind: 'postgres',
    connectionString: URL_,
    poolSize: 4,
    batchesInFlight: 3,
    statementTimeout: 2_500,
    connectTimeout: 750,
    preparedStatements: false,
    createTable: false,
    startTimeout: 30_000,
  });
});

it('reads every store option from its PLANT_STORE_DATABASE_* variable', () => {
  expect(
    storeOf([], {
      PLANT_STORE_DATABASE_URL: URL_,
      PLANT_STORE_DATABASE_POOL_SIZE: '20',
      PLANT_STORE_DATABASE_BATCHES: '1',
      PLANT_STORE_DATABASE_STATEMENT_TIMEOUT: '0',
      PLANT_STORE_DATABASE_CONNECT_TIMEOUT: '3s',
      PLANT_STORE_DATABASE_PREPARED_STATEMENTS: 'auto',
      PLANT_STORE_DATABASE_CREATE_TABLE: 'true',
    }),
  ).toEqual({
    kind: 'postgres',
    connectionString: URL_,
    poolSize: 20,
    batchesInFlight: 1,
    statementTimeout: 0,
    connectTimeout: 3_000,
    preparedStatements: 'auto',
    createTable: true,
  });
});

it('lets a flag win over its variable, and leaves unset options to the store', () => {
  expect(
    storeOf(['--database', URL_, '--database-pool-size', '2', '--database-prepared-statements', 'on'], {
      PLANT_STORE_DATABASE_POOL_SIZE: '50',
      PLANT_STORE_DATABASE_PREPARED_STATEMENTS: 'off',
    }),
  ).toEqual({ kind: 'postgres', connectionString: URL_, poolSize: 2, preparedStatements: true });
  expect(storeOf(['--database', URL_])).toEqual({ kind: 'postgres', connectionString: URL_ });
});

it('passes the store options to the import too', () => {
  expect(
    parseCli(
      ['import', '--data', 'p.log', '--database', URL_, '--database-batches', '8', '--database-pool-size', '8'],
      {},
    ),
  ).toMatchObject({ kind: 'import', to: { batchesInFlight: 8, poolSize: 8 } });
});

it.each([
  [['--database-pool-size', '0'], /--database-pool-size must be a number of connections from 1 to 10000, got "0"/],
  [['--database-pool-size', 'ten'], /--database-pool-size must be a number of connections/],
  [['--database-batches=-1'], /--database-batches must be a number of statements from 1/],
  [['--database-batches', '100000'], /--database-batches must be a number of statements/],
  [['--database-statement-timeout', '5m'], /--database-statement-timeout must be seconds .* or milliseconds/],
  [['--database-statement-timeout=-5'], /--database-statement-timeout must be seconds/],
  [['--database-connect-timeout', '0.0001'], /--database-connect-timeout must be seconds/],
  [['--database-prepared-statements', 'maybe'], /--database-prepared-statements must be auto, on or off, got "maybe"/],
  [['--database-prepared-statements', ''], /--database-prepared-statements must be auto, on or off/],
  [['--database-create-table', 'sometimes'], /--database-create-table must be 1\/true\/yes\/on or 0\/false\/no\/off/],
  [['--database-create-table', ''], /--database-create-table must be yes/],
])('refuses %j with a usage error naming the flag and the value', (flag, message) => {
  expect(() => parseCli(['--database', URL_, ...flag], {})).toThrow(UsageError);
  expect(() => parseCli(['--database', URL_, ...flag], {})).toThrow(message);
});

it('names the variable when the bad value came from the environment', () => {
  expect(() => storeOf(['--database', URL_], { PLANT_STORE_DATABASE_STATEMENT_TIMEOUT: 'soon' })).toThrow(
    /PLANT_STORE_DATABASE_STATEMENT_TIMEOUT must be seconds .* got "soon"/,
  );
  expect(() => storeOf(['--database', URL_], { PLANT_STORE_DATABASE_POOL_SIZE: '0' })).toThrow(
    /PLANT_STORE_DATABASE_POOL_SIZE must be a number of connections/,
  );
});

it('refuses every --database-* flag without --database', () => {
  for (const flag of [
    '--database-pool-size',
    '--database-batches',
    '--database-statement-timeout',
    '--database-connect-timeout',
    '--database-prepared-statements',
    '--database-create-table',
  ]) {
    expect(() => parseCli([flag, '1'], {})).toThrow(new RegExp(`${flag} goes with --database`));
  }
});

it('lists every store flag and its variable in --help', () => {
  for (const [flag, variable] of [
    ['--database-pool-size', 'PLANT_STORE_DATABASE_POOL_SIZE'],
    ['--database-batches', 'PLANT_STORE_DATABASE_BATCHES'],
    ['--database-statement-timeout', 'PLANT_STORE_DATABASE_STATEMENT_TIMEOUT'],
    ['--database-connect-timeout', 'PLANT_STORE_DATABASE_CONNECT_TIMEOUT'],
    ['--database-prepared-statements', 'PLANT_STORE_DATABASE_PREPARED_STATEMENTS'],
    ['--database-create-table', 'PLANT_STORE_DATABASE_CREATE_TABLE'],
  ]) {
    expect(USAGE).toContain(flag);
    expect(USAGE).toContain(variable);
  }
  expect(USAGE).toMatch(/sslmode, sslrootcert/);
});

it('exits 2 for a bad store option, naming it, before any connection is tried', async () => {
  const cli = run(['--database', 'postgres://plants:s3cret@127.0.0.1:1/plants', '--port', '0'], {
    PLANT_STORE_DATABASE_BATCHES: 'many',
  });
  expect(await cli.exited).toBe(2);
  expect(cli.stderr).toMatch(/PLANT_STORE_DATABASE_BATCHES must be a number of statements from 1 to 10000, got "many"/);
  expect(cli.stderr).not.toContain('s3cret');
});
