import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import type { PlantStoreServerOptions } from '../plant-store-server.js';

/** A flag or environment value the CLI cannot use; the CLI prints it and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Where the CLI keeps plants: in memory, in a file store (`--data`), or in PostgreSQL (`--database`). */
export type StoreChoice =
  | { readonly kind: 'memory' }
  | { readonly kind: 'file'; readonly path: string }
  /** The store's options, from the `--database-*` flags and `PLANT_STORE_DATABASE_*` variables; times in ms. */
  | {
      readonly kind: 'postgres';
      readonly connectionString: string;
      /** `--database-wait`. */
      readonly startTimeout?: number;
      readonly schema?: string;
      readonly table?: string;
      readonly poolSize?: number;
      readonly batchesInFlight?: number;
      readonly statementTimeout?: number;
      readonly connectTimeout?: number;
      readonly preparedStatements?: boolean | 'auto';
      readonly createTable?: boolean;
    };

/** What the command line asks for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  /** `workers`: how many processes serve (`--workers`); without it the server is this one process. */
  | {
      readonly kind: 'start';
      readonly options: PlantStoreServerOptions;
      readonly store: StoreChoice;
      readonly workers?: number;
    }
  /** `plant-store-server import --data <file> --database <url>`: copy a file store's plants into PostgreSQL. */
  | {
      readonly kind: 'import';
      readonly from: Extract<StoreChoice, { kind: 'file' }>;
      readonly to: Extract<StoreChoice, { kind: 'postgres' }>;
    };

/** The `--help` text. */
export const USAGE = `Usage: plant-store-server [options]
       plant-store-server import --data <file> --database <url>

Starts the Plant Store reference server (POST {base}/plants). \`import\` copies the plants of a --data
file into the --database table (run it again: the same table), then exits.

Options (each flag wins over its environment variable):
  --port <n>           TCP port, 0 for any free one        PLANT_STORE_PORT       (default 4010)
  --host <addr>        interface to listen on              PLANT_STORE_HOST       (default 127.0.0.1)
  --token <t>          accepted bearer token, repeatable   PLANT_STORE_TOKENS     (comma-separated;
                       (for development: a flag is seen by                        default: a random
                       every local user in ps; use                                one, printed)
                       --token-file)
  --any-token          accept every bearer token           PLANT_STORE_ANY_TOKEN  (1/true)
  --base-path <path>   path prefix, e.g. /api              PLANT_STORE_BASE_PATH  (default none)
  --body-limit <size>  body limit: bytes, or with k / m    PLANT_STORE_BODY_LIMIT (default 1m)
  --cors <origin>      allowed origin or *, repeatable     PLANT_STORE_CORS       (comma-separated)
  --data <file>        durable store file                  PLANT_STORE_DATA       (default: memory)
  --database <url>     PostgreSQL, postgres://user:pass@host:port/db (PG* variables fill in the rest)
                                                           PLANT_STORE_DATABASE_URL
                       URL parameters as libpq names them: sslmode, sslrootcert, sslcert, sslkey,
                       connect_timeout, application_name, options, target_session_attrs
                       Failover: several hosts (postgres://u@db1:5432,db2:5432/plants
                       ?target_session_attrs=read-write, or host=db1,db2 port=5432,5432): the store
                       writes to the first that qualifies and moves when it goes away or turns read-only
  --database-wait <s>  how long to wait for the database   PLANT_STORE_DATABASE_WAIT (default 10)
                       to accept a connection at start
  --database-schema <name>, --database-table <name>
                       where the plants are                PLANT_STORE_DATABASE_SCHEMA, _TABLE
                                                           (default public, plants)
  --database-pool-size <n>
                       connections per process             PLANT_STORE_DATABASE_POOL_SIZE (default 10)
  --database-batches <n>
                       insert statements in flight         PLANT_STORE_DATABASE_BATCHES (default 2)
  --database-statement-timeout <s>
                       per statement; 0 for none, or ms    PLANT_STORE_DATABASE_STATEMENT_TIMEOUT
                       with a suffix (500ms)               (default 5)
  --database-connect-timeout <s>
                       to open one connection; 0 for none  PLANT_STORE_DATABASE_CONNECT_TIMEOUT
                                                           (default 5, or connect_timeout in the URL)
  --database-prepared-statements <auto|on|off>
                       named statements; auto drops them   PLANT_STORE_DATABASE_PREPARED_STATEMENTS
                       behind a pooler that mixes sessions (default auto)
  --database-create-table <yes|no>
                       create the table when absent        PLANT_STORE_DATABASE_CREATE_TABLE
                                                           (default yes)
  --log                JSON log lines on stderr            PLANT_STORE_LOG        (1/true)
  --log-level <level>  debug, info (each request), warn,   PLANT_STORE_LOG_LEVEL  (default info)
                       error
  --ops-port <n>       operations listener: /livez,        PLANT_STORE_OPS_PORT   (default: off)
                       /readyz, /metrics
  --ops-host <addr>    its interface                       PLANT_STORE_OPS_HOST   (default: --host)
  --workers <n|auto>   serve from n processes (auto: one   PLANT_STORE_WORKERS    (needs --database)
                       per core) sharing the port

Authentication and limits:
  --token-file <path>  accepted tokens, one per line: a    PLANT_STORE_TOKEN_FILE
                       token or sha256:<hex> of one; # comments. SIGHUP re-reads it (every
                       worker); a bad file keeps the tokens as they were and logs an error
  --jwks <file|url>    accept JWTs signed by these keys    PLANT_STORE_JWKS
                       (https URL; http only to localhost)
  --jwt-issuer <iss>   accepted iss, repeatable (required  PLANT_STORE_JWT_ISSUER (comma-separated)
                       with --jwks)
  --jwt-audience <aud> accepted aud, repeatable (required) PLANT_STORE_JWT_AUDIENCE (comma-separated)
  --jwt-algorithms <a,b>                                   PLANT_STORE_JWT_ALGORITHMS
                       default RS256,PS256,ES256,EdDSA; never none; HS256/384/512 only with:
  --jwt-secret-file <path>
                       HMAC secret for HS* JWTs instead    PLANT_STORE_JWT_SECRET_FILE
                       of --jwks
  --jwt-clock-tolerance <s>
                       leeway for exp/nbf/iat              PLANT_STORE_JWT_CLOCK_TOLERANCE (default 30)
  --rate-limit <n>/<s> requests per credential (token      PLANT_STORE_RATE_LIMIT (default: none)
                       entry or JWT sub), per process: with --workers k, up to k*n in all
  --failed-auth-limit <n>/<s>
                       refused tokens per client address;  PLANT_STORE_FAILED_AUTH_LIMIT
                       over it every request from there    (default: none)
                       gets 429 until it refills
  --trust-proxy <hops> proxies whose X-Forwarded-For to    PLANT_STORE_TRUST_PROXY (default 0)
                       believe for the client address

  -h, --help           show this help
  -v, --version        show the version

SIGINT/SIGTERM stop accepting, finish requests in flight, flush the store and exit 0.
SIGHUP re-reads --token-file.
`;

type Env = Readonly<Record<string, string | undefined>>;

/** The flags, as `parseArgs` reads them. */
const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string', multiple: true },
  'any-token': { type: 'boolean' },
  'base-path': { type: 'string' },
  'body-limit': { type: 'string' },
  cors: { type: 'string', multiple: true },
  data: { type: 'string' },
  database: { type: 'string' },
  'database-wait': { type: 'string' },
  'database-schema': { type: 'string' },
  'database-table': { type: 'string' },
  'database-pool-size': { type: 'string' },
  'database-batches': { type: 'string' },
  'database-statement-timeout': { type: 'string' },
  'database-connect-timeout': { type: 'string' },
  'database-prepared-statements': { type: 'string' },
  'database-create-table': { type: 'string' },
  log: { type: 'boolean' },
  'log-level': { type: 'string' },
  'ops-port': { type: 'string' },
  'ops-host': { type: 'string' },
  workers: { type: 'string' },
  // Authentication and limits
  'token-file': { type: 'string' },
  jwks: { type: 'string' },
  'jwt-issuer': { type: 'string', multiple: true },
  'jwt-audience': { type: 'string', multiple: true },
  'jwt-algorithms': { type: 'string' },
  'jwt-secret-file': { type: 'string' },
  'jwt-clock-tolerance': { type: 'string' },
  'rate-limit': { type: 'string' },
  'failed-auth-limit': { type: 'string' },
  'trust-proxy': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The flags of `argv`; throws {@link UsageError}. */
function readFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: FLAGS }).values;
  } catch (error) {
    // A stray argument is most often a value given to a flag that takes none (`--any-token s3cret`),
    // which may be a secret, and parseArgs quotes it: this message may end up in a log.
    if ((error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new UsageError(
        'unexpected argument: this command takes no positional arguments (is it a value after a flag that takes none?)',
      );
    }
    // The other messages of parseArgs name the flag ("Unknown option '--prot'"), never its value.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** Reads the command line and the environment into server options; throws {@link UsageError}. */
export function parseCli(argv: readonly string[], env: Env): CliCommand {
  if (argv[0] === 'import') return parseImport(argv.slice(1), env);
  const values = readFlags(argv);
  if (values.help === true) return { kind: 'help' };
  if (values.version === true) return { kind: 'version' };

  const options: {
    -readonly [K in keyof PlantStoreServerOptions]: PlantStoreServerOptions[K];
  } = {};

  const port = values.port ?? nonEmpty(env.PLANT_STORE_PORT);
  if (port !== undefined) options.port = parsePort(port, values.port !== undefined ? '--port' : 'PLANT_STORE_PORT');

  const host = values.host ?? nonEmpty(env.PLANT_STORE_HOST);
  if (host !== undefined) {
    if (host.trim() === '') throw new UsageError('--host must not be empty');
    options.host = host;
  }

  // Read only where no flag settles the tokens: a flag beats the variable, even a malformed one.
  const envAnyToken = (): boolean | undefined => parseFlag(env.PLANT_STORE_ANY_TOKEN, 'PLANT_STORE_ANY_TOKEN');
  const flagTokens = values.token;
  // The two flags contradict each other, and so do the two variables; a flag beats the environment,
  // as everywhere else.
  if (values['any-token'] === true && flagTokens !== undefined) {
    throw new UsageError('give either --token or --any-token, not both');
  }
  if (flagTokens !== undefined) {
    options.tokens = checkTokens(flagTokens, '--token');
  } else if (values['any-token'] === true) {
    options.tokens = 'any';
  } else if (nonEmpty(env.PLANT_STORE_TOKENS) !== undefined) {
    if (envAnyToken() === true)
      throw new UsageError('set either PLANT_STORE_TOKENS or PLANT_STORE_ANY_TOKEN, not both');
    options.tokens = checkTokens(splitList(env.PLANT_STORE_TOKENS ?? ''), 'PLANT_STORE_TOKENS');
  } else if (envAnyToken() === true) {
    options.tokens = 'any';
  }

  const basePath = values['base-path'] ?? nonEmpty(env.PLANT_STORE_BASE_PATH);
  // Its form is checked by the core, whose TypeError the CLI reports with exit code 2.
  if (basePath !== undefined) options.basePath = basePath;

  const bodyLimit = values['body-limit'] ?? nonEmpty(env.PLANT_STORE_BODY_LIMIT);
  if (bodyLimit !== undefined) {
    options.bodyLimit = parseSize(
      bodyLimit,
      values['body-limit'] !== undefined ? '--body-limit' : 'PLANT_STORE_BODY_LIMIT',
    );
  }

  const cors =
    values.cors ?? (nonEmpty(env.PLANT_STORE_CORS) !== undefined ? splitList(env.PLANT_STORE_CORS ?? '') : undefined);
  if (cors !== undefined) {
    if (cors.length === 0 || cors.some((origin) => origin === '')) {
      throw new UsageError('--cors needs an origin such as https://app.example, or *');
    }
    options.cors = cors.includes('*') ? '*' : cors;
  }

  const store = storeChoice(values, env);

  authChoice(values, env, options);

  const log = values.log ?? parseFlag(env.PLANT_STORE_LOG, 'PLANT_STORE_LOG');
  if (log === true) options.log = true;
  const logLevel = values['log-level'] ?? nonEmpty(env.PLANT_STORE_LOG_LEVEL);
  if (logLevel !== undefined) {
    if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
      const source = values['log-level'] !== undefined ? '--log-level' : 'PLANT_STORE_LOG_LEVEL';
      throw new UsageError(`${source} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
    }
    options.logLevel = logLevel as LogLevel;
  }

  const opsPort = values['ops-port'] ?? nonEmpty(env.PLANT_STORE_OPS_PORT);
  const opsHost = values['ops-host'] ?? nonEmpty(env.PLANT_STORE_OPS_HOST);
  if (opsPort !== undefined) {
    const port = parsePort(opsPort, values['ops-port'] !== undefined ? '--ops-port' : 'PLANT_STORE_OPS_PORT');
    options.ops = { port, ...(opsHost !== undefined && { host: opsHost }) };
  } else if (opsHost !== undefined) {
    throw new UsageError('--ops-host goes with --ops-port');
  }

  const workers = parseWorkers(values.workers ?? nonEmpty(env.PLANT_STORE_WORKERS), values.workers !== undefined);
  if (workers !== undefined && store.kind !== 'postgres') {
    throw new UsageError(
      `--workers needs --database: ${store.kind === 'file' ? 'a --data file is locked by one process' : 'plants in memory live in one process'}, so the workers could not share them. Run one process, or keep the plants in PostgreSQL.`,
    );
  }

  return { kind: 'start', options, store, ...(workers !== undefined && { workers }) };
}

type Flags = ReturnType<typeof readFlags>;

/**
 * The authentication and limit flags into `options`: a token file, JWTs, rate limits, trusted proxies.
 * Files named here (a JWKS, a JWT secret) are read now, so a bad one is a usage error at start.
 */
function authChoice(
  values: Flags,
  env: Env,
  options: { -readonly [K in keyof PlantStoreServerOptions]: PlantStoreServerOptions[K] },
): void {
  const source = (flag: keyof Flags, variable: string) => (values[flag] !== undefined ? `--${flag}` : variable);
  const tokenFile = values['token-file'] ?? nonEmpty(env.PLANT_STORE_TOKEN_FILE);
  if (tokenFile !== undefined) {
    if (values.token !== undefined || values['any-token'] === true)
      throw new UsageError('give either --token-file or --token / --any-token, not both');
    // A token variable beside the file is set by someone else (a shell profile): the file wins, as a flag would.
    delete options.tokens;
    options.tokenFile = tokenFile;
  }

  const jwks = values.jwks ?? nonEmpty(env.PLANT_STORE_JWKS);
  const secretFile = values['jwt-secret-file'] ?? nonEmpty(env.PLANT_STORE_JWT_SECRET_FILE);
  const issuer = values['jwt-issuer'] ?? listOf(env.PLANT_STORE_JWT_ISSUER);
  const audience = values['jwt-audience'] ?? listOf(env.PLANT_STORE_JWT_AUDIENCE);
  const algorithms = values['jwt-algorithms'] ?? nonEmpty(env.PLANT_STORE_JWT_ALGORITHMS);
  const tolerance = values['jwt-clock-tolerance'] ?? nonEmpty(env.PLANT_STORE_JWT_CLOCK_TOLERANCE);
  const auth: {
    -readonly [K in keyof NonNullable<PlantStoreServerOptions['auth']>]: NonNullable<
      PlantStoreServerOptions['auth']
    >[K];
  } = {};
  if (jwks !== undefined || secretFile !== undefined) {
    if (jwks !== undefined && secretFile !== undefined)
      throw new UsageError('give either --jwks or --jwt-secret-file, not both');
    if (options.tokens === 'any') throw new UsageError('--any-token accepts every token: it cannot go with JWTs');
    if (issuer === undefined || audience === undefined)
      throw new UsageError(
        'JWTs need --jwt-issuer and --jwt-audience: a token minted for another service must not pass',
      );
    auth.jwt = {
      issuer,
      audience,
      ...(jwks !== undefined && { jwks: /^https?:\/\//i.test(jwks) ? jwks : readJwksFile(jwks) }),
      ...(secretFile !== undefined && { secret: readSecretFile(secretFile) }),
      ...(algorithms !== undefined && { algorithms: splitList(algorithms) }),
      ...(tolerance !== undefined && {
        clockTolerance: parseWhole(tolerance, source('jwt-clock-tolerance', 'PLANT_STORE_JWT_CLOCK_TOLERANCE'), 3600),
      }),
    };
  } else {
    for (const flag of ['jwt-issuer', 'jwt-audience', 'jwt-algorithms', 'jwt-clock-tolerance'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --jwks or --jwt-secret-file`);
    }
  }
  const rate = values['rate-limit'] ?? nonEmpty(env.PLANT_STORE_RATE_LIMIT);
  if (rate !== undefined) auth.rateLimit = parseRate(rate, source('rate-limit', 'PLANT_STORE_RATE_LIMIT'));
  const failed = values['failed-auth-limit'] ?? nonEmpty(env.PLANT_STORE_FAILED_AUTH_LIMIT);
  if (failed !== undefined)
    auth.failedAuthLimit = parseRate(failed, source('failed-auth-limit', 'PLANT_STORE_FAILED_AUTH_LIMIT'));
  if (Object.keys(auth).length > 0) options.auth = auth;
  const trust = values['trust-proxy'] ?? nonEmpty(env.PLANT_STORE_TRUST_PROXY);
  if (trust !== undefined) options.trustProxy = parseWhole(trust, source('trust-proxy', 'PLANT_STORE_TRUST_PROXY'), 32);
}

/** `<n>/<seconds>`: e.g. `100/1`, `20/60`. */
function parseRate(value: string, source: string): { requests: number; seconds: number } {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,5})\s*$/.exec(value);
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (match === null || !(requests >= 1) || !(seconds >= 1 && seconds <= 86_400)) {
    throw new UsageError(
      `${source} must be <requests>/<seconds>, e.g. 100/1 (1 or more requests, 1 to 86400 seconds), got ${JSON.stringify(value)}`,
    );
  }
  return { requests, seconds };
}

function parseWhole(value: string, source: string, max: number): number {
  const n = /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= max))
    throw new UsageError(`${source} must be a whole number from 0 to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

function listOf(value: string | undefined): string[] | undefined {
  return nonEmpty(value) === undefined ? undefined : splitList(value ?? '');
}

function readJwksFile(path: string): { keys: object[] } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--jwks ${path}: ${code !== undefined ? `cannot read it (${code})` : 'not JSON'}`);
  }
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { keys?: unknown }).keys)) {
    throw new UsageError(`--jwks ${path}: not a JWK Set (an object with a "keys" list)`);
  }
  return json as { keys: object[] };
}

function readSecretFile(path: string): Uint8Array {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new UsageError(`--jwt-secret-file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  // A trailing newline is an editor's, not the secret's.
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 10 || bytes[end - 1] === 13)) end--;
  return new Uint8Array(bytes.subarray(0, end));
}

/** `--workers <n|auto>`: 1 to 256 processes, or one per core. */
function parseWorkers(value: string | undefined, fromFlag: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'auto') return availableParallelism();
  const count = /^\d{1,3}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(count >= 1 && count <= 256)) {
    throw new UsageError(
      `${fromFlag ? '--workers' : 'PLANT_STORE_WORKERS'} must be a number of processes from 1 to 256, or auto, got ${JSON.stringify(value)}`,
    );
  }
  return count;
}

/** `--data` or `--database` (or neither: memory), never both: one store per server. */
function storeChoice(values: Flags, env: Env): StoreChoice {
  const data = values.data ?? nonEmpty(env.PLANT_STORE_DATA);
  const database = values.database ?? nonEmpty(env.PLANT_STORE_DATABASE_URL);
  if (data !== undefined && database !== undefined) {
    throw new UsageError(
      'give either --data (a file store) or --database (PostgreSQL), not both; to move a file into the database, run plant-store-server import',
    );
  }
  if (data !== undefined) return { kind: 'file', path: data };
  if (database !== undefined) return postgresChoice(database, values, env);
  for (const flag of Object.keys(FLAGS)) {
    if (flag.startsWith('database-') && values[flag as keyof Flags] !== undefined)
      throw new UsageError(`--${flag} goes with --database`);
  }
  return { kind: 'memory' };
}

function postgresChoice(url: string, values: Flags, env: Env): Extract<StoreChoice, { kind: 'postgres' }> {
  // The URL is never quoted back: it may hold a password, and this message may end up in a log.
  // libpq's keyword/value form and a URL's host list (db1:5432,db2:5433, no WHATWG URL host) are the
  // store's to check: a URL is checked here with its first host.
  const firstHost = url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?[^,/?#]*)[^/?#]*/i, '$1');
  const keywordValue = /^\s*[A-Za-z_]\w*\s*=/.test(url);
  if (!keywordValue && (!/^postgres(ql)?:\/\//i.test(url) || !URL.canParse(firstHost))) {
    throw new UsageError('--database must be a URL such as postgres://user:password@host:5432/database');
  }
  // Their form is checked by the store, whose TypeError the CLI reports with exit code 2.
  const schema = values['database-schema'] ?? nonEmpty(env.PLANT_STORE_DATABASE_SCHEMA);
  const table = values['database-table'] ?? nonEmpty(env.PLANT_STORE_DATABASE_TABLE);
  const where = { ...(schema !== undefined && { schema }), ...(table !== undefined && { table }) };
  /** A flag's value, else its PLANT_STORE_DATABASE_* variable's, with the name to quote in an error. */
  const read = (flag: keyof Flags & `database-${string}`) => {
    const variable = `PLANT_STORE_${flag.toUpperCase().replaceAll('-', '_')}`;
    const fromFlag = values[flag] as string | undefined;
    const value = fromFlag ?? nonEmpty(env[variable]);
    return value === undefined ? undefined : { value, source: fromFlag !== undefined ? `--${flag}` : variable };
  };
  const wait = read('database-wait');
  if (wait !== undefined) {
    const seconds = /^\d{1,6}$/.test(wait.value.trim()) ? Number(wait.value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(seconds))
      throw new UsageError(`${wait.source} must be a whole number of seconds, got ${JSON.stringify(wait.value)}`);
  }
  const poolSize = read('database-pool-size');
  const batches = read('database-batches');
  const statementTimeout = read('database-statement-timeout');
  const connectTimeout = read('database-connect-timeout');
  const prepared = read('database-prepared-statements');
  const createTable = read('database-create-table');
  return {
    kind: 'postgres',
    connectionString: url,
    ...(wait !== undefined && { startTimeout: Number(wait.value.trim()) * 1000 }),
    ...where,
    ...(poolSize !== undefined && { poolSize: parseCount(poolSize, 'connections', 1) }),
    ...(batches !== undefined && { batchesInFlight: parseCount(batches, 'statements', 1) }),
    ...(statementTimeout !== undefined && { statementTimeout: parseDuration(statementTimeout) }),
    ...(connectTimeout !== undefined && { connectTimeout: parseDuration(connectTimeout) }),
    ...(prepared !== undefined && { preparedStatements: parsePrepared(prepared) }),
    ...(createTable !== undefined && { createTable: parseYesNo(createTable) }),
  };
}

interface Sourced {
  readonly value: string;
  /** The flag or variable it came from, to name in an error. */
  readonly source: string;
}

/** A whole number from `min` to 10,000 (a bound far past any sane pool). */
function parseCount({ value, source }: Sourced, unit: string, min: number): number {
  const count = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(count >= min && count <= 10_000))
    throw new UsageError(`${source} must be a number of ${unit} from ${min} to 10000, got ${JSON.stringify(value)}`);
  return count;
}

/** Seconds (`5`, `1.5`, `5s`) or milliseconds (`500ms`), as whole milliseconds; 0 for none. */
function parseDuration({ value, source }: Sourced): number {
  const match = /^(\d{1,7}(?:\.\d{1,3})?)\s*(ms|s)?$/.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (match[2] === 'ms' ? 1 : 1000);
  if (!Number.isSafeInteger(ms))
    throw new UsageError(
      `${source} must be seconds (5, 1.5, 5s) or milliseconds (500ms), 0 for none, got ${JSON.stringify(value)}`,
    );
  return ms;
}

/** `auto`, or on/off as the boolean variables are written. */
function parsePrepared(sourced: Sourced): boolean | 'auto' {
  if (sourced.value.trim().toLowerCase() === 'auto') return 'auto';
  try {
    return parseYesNo(sourced);
  } catch {
    throw new UsageError(`${sourced.source} must be auto, on or off, got ${JSON.stringify(sourced.value)}`);
  }
}

/** A flag's yes/no value, which an empty value does not leave unset. */
function parseYesNo({ value, source }: Sourced): boolean {
  const answer = parseFlag(value, source);
  if (answer === undefined) throw new UsageError(`${source} must be yes/on/true/1 or no/off/false/0, got ""`);
  return answer;
}

/** `import --data <file> --database <url>`: both stores named, nothing else taken. */
function parseImport(argv: readonly string[], env: Env): CliCommand {
  const values = readFlags(argv);
  const unrelated = Object.keys(values).filter((flag) => flag !== 'data' && !flag.startsWith('database'));
  if (unrelated.length > 0)
    throw new UsageError(`import takes --data and the --database flags only, not --${unrelated[0]}`);
  const data = values.data ?? nonEmpty(env.PLANT_STORE_DATA);
  const database = values.database ?? nonEmpty(env.PLANT_STORE_DATABASE_URL);
  if (data === undefined || database === undefined) {
    throw new UsageError('import needs --data <file> (the file store to read) and --database <url> (where to copy it)');
  }
  return { kind: 'import', from: { kind: 'file', path: data }, to: postgresChoice(database, values, env) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function checkTokens(tokens: readonly string[], source: string): string[] {
  // RFC 6750 §2.1 b64token: what can follow "Bearer " in a header.
  const bad = tokens.find((token) => !/^[A-Za-z0-9\-._~+/]+=*$/.test(token));
  if (bad !== undefined || tokens.length === 0) {
    // The value itself is not echoed: it is a secret, and this message may end up in a log.
    throw new UsageError(`${source}: a token must be 1 or more of A-Z a-z 0-9 - . _ ~ + / (then optional =)`);
  }
  return [...tokens];
}

function parsePort(value: string, source: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new UsageError(`${source} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function parseSize(value: string, source: string): number {
  const match = /^(\d+)\s*([kKmM]?)[bB]?$/.exec(value.trim());
  const factor = match?.[2]?.toLowerCase() === 'm' ? 1024 * 1024 : match?.[2]?.toLowerCase() === 'k' ? 1024 : 1;
  const size = match === null ? Number.NaN : Number(match[1]) * factor;
  if (!Number.isSafeInteger(size) || size <= 0) {
    throw new UsageError(
      `${source} must be a positive size in bytes, optionally with k or m (1024-based), got ${JSON.stringify(value)}`,
    );
  }
  return size;
}

function parseFlag(value: string | undefined, source: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const normal = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normal)) return true;
  if (['0', 'false', 'no', 'off'].includes(normal)) return false;
  throw new UsageError(`${source} must be 1/true/yes/on or 0/false/no/off, got ${JSON.stringify(value)}`);
}
