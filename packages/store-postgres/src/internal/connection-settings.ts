// Where and how to connect, resolved as libpq resolves it: a parameter of the connection URL wins over
// its PG* environment variable, which wins over the default, so that a URL or an environment that works
// with psql means the same here. A URL's user, password, host, port and database are read by
// pg-connection-string, as `pg` reads them. Owned here, since it does none of it: the PG* variables, host
// lists and target_session_attrs (hosts.ts), libpq's keyword/value form, and sslmode as libpq means it
// (pg-connection-string checks the server's certificate for `require`, and knows neither `allow` nor
// `sslrootcert=system`).
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { ConnectionOptions } from 'node:tls';
import { parse } from 'pg-connection-string';
import {
  describeHosts,
  type Host,
  isKeywordValue,
  parseKeywordValue,
  resolveHosts,
  resolveTargetSessionAttrs,
  splitUrlHosts,
  type TargetSessionAttrs,
} from './hosts.js';

/** libpq's sslmode values. */
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

const SSL_MODES: readonly string[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** The URL query parameters understood, as libpq names them. */
const URL_PARAMETERS = [
  'host',
  'port',
  'user',
  'password',
  'dbname',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'application_name',
  'options',
  'target_session_attrs',
] as const;

type Parameter = (typeof URL_PARAMETERS)[number];

/** The environment variable libpq reads for each parameter. */
const ENVIRONMENT: Record<Parameter, string> = {
  host: 'PGHOST',
  port: 'PGPORT',
  user: 'PGUSER',
  password: 'PGPASSWORD',
  dbname: 'PGDATABASE',
  sslmode: 'PGSSLMODE',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  connect_timeout: 'PGCONNECT_TIMEOUT',
  application_name: 'PGAPPNAME',
  options: 'PGOPTIONS',
  target_session_attrs: 'PGTARGETSESSIONATTRS',
};

/** What the pool is configured with, plus the target to name in messages (never the password). */
export interface ConnectionSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** Undefined leaves it to `pg`, which then reads `~/.pgpass` as libpq does. */
  readonly password: string | undefined;
  readonly database: string;
  readonly sslMode: SslMode;
  /** TLS options for every mode but disable and allow; for prefer, without any check of the server. */
  readonly ssl: ConnectionOptions | undefined;
  /** Milliseconds, from connect_timeout / PGCONNECT_TIMEOUT, when one is set. */
  readonly connectTimeout: number | undefined;
  readonly applicationName: string;
  readonly options: string | undefined;
  /** Every server of a host list, in order; `host` and `port` are the first. */
  readonly hosts: readonly Host[];
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** `host:port` (comma-separated for a host list), for messages. */
  readonly target: string;
}

/** What the caller gave, besides the URL and the environment. */
export interface ConnectionInput {
  readonly connectionString?: string | undefined;
  readonly caFile?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The settings of `input`: the URL's parameters, else the PG* environment variables, else libpq's
 * defaults. Refuses what is not a postgres URL, an unknown URL parameter and a bad sslmode or port with
 * a TypeError that never repeats the URL (it may hold a password).
 */
export function resolveConnectionSettings(input: ConnectionInput): ConnectionSettings {
  const env = input.env ?? process.env;
  // An empty string, as an unset variable often arrives, means no URL: libpq's empty conninfo.
  const fromUrl =
    input.connectionString === undefined || input.connectionString === ''
      ? {}
      : isKeywordValue(input.connectionString)
        ? (parseKeywordValue(input.connectionString, URL_PARAMETERS) as Partial<Record<Parameter, string>>)
        : parseConnectionUrl(input.connectionString);
  const get = (name: Parameter): string | undefined => {
    const value = fromUrl[name] ?? env[ENVIRONMENT[name]];
    return value === '' ? undefined : value;
  };

  const hosts = resolveHosts(get('host'), get('port'));
  const { host, port } = hosts[0]!;
  const targetSessionAttrs = resolveTargetSessionAttrs(get('target_session_attrs'));
  const user = get('user') ?? osUser();
  const database = get('dbname') ?? user;

  const sslModeText = get('sslmode') ?? 'prefer';
  if (!SSL_MODES.includes(sslModeText))
    throw new TypeError(`sslmode must be one of ${SSL_MODES.join(', ')}; got ${JSON.stringify(sslModeText)}`);
  const sslMode = sslModeText as SslMode;
  const rootCert = input.caFile ?? get('sslrootcert');

  let connectTimeout: number | undefined;
  const timeoutText = get('connect_timeout');
  if (timeoutText !== undefined) {
    // libpq: seconds, and 0 or less means wait forever; a minimum of 2 s.
    const seconds = Number(timeoutText);
    if (!Number.isInteger(seconds))
      throw new TypeError(`connect_timeout must be a whole number of seconds; got ${JSON.stringify(timeoutText)}`);
    if (seconds > 0) connectTimeout = Math.max(seconds, 2) * 1000;
  }

  return {
    host,
    port,
    user,
    password: get('password'),
    database,
    sslMode,
    ssl: tlsOptions(sslMode, rootCert, get('sslcert'), get('sslkey')),
    connectTimeout,
    applicationName: get('application_name') ?? 'plant-store',
    options: get('options'),
    hosts,
    targetSessionAttrs,
    target: describeHosts(hosts),
  };
}

/**
 * TLS as libpq does it for each sslmode: `require` encrypts without checking the server, unless a root
 * certificate is given, when it checks the chain as `verify-ca` does; `verify-ca` checks the chain but
 * not the host name; `verify-full` checks both. `sslrootcert=system` uses the system's CAs.
 */
function tlsOptions(
  mode: SslMode,
  rootCert: string | undefined,
  cert: string | undefined,
  key: string | undefined,
): ConnectionOptions | undefined {
  if (mode === 'disable' || mode === 'allow') return undefined;
  const clientCert = {
    ...(cert !== undefined && { cert: readPem(cert, 'sslcert') }),
    ...(key !== undefined && { key: readPem(key, 'sslkey') }),
  };
  const ca = rootCert === undefined || rootCert === 'system' ? undefined : readPem(rootCert, 'sslrootcert');
  const verify = mode === 'verify-full' || mode === 'verify-ca' || (mode === 'require' && rootCert !== undefined);
  if (!verify) return { rejectUnauthorized: false, ...clientCert };
  if ((mode === 'verify-full' || mode === 'verify-ca') && rootCert === undefined) {
    throw new TypeError(
      `sslmode=${mode} needs a root certificate to check the server against: set the caFile option, sslrootcert in the URL or PGSSLROOTCERT (sslrootcert=system for the system's CAs)`,
    );
  }
  return {
    rejectUnauthorized: true,
    ...(ca !== undefined && { ca }),
    // pg names the host to TLS (servername), which checks it unless told not to.
    ...(mode !== 'verify-full' && { checkServerIdentity: () => undefined }),
    ...clientCert,
  };
}

/**
 * The user, password, host, port and database of a postgres:// URL, as pg-connection-string reads
 * them, and its query parameters. The query is read here: pg-connection-string acts on its TLS
 * parameters as it reads them (it reads the files and warns about sslmode) and takes any parameter,
 * where the store refuses one it does not know. It reads any URL too (a relative one against a base),
 * so the scheme is checked first; and it has no host lists (see {@link splitUrlHosts}).
 */
function parseConnectionUrl(text: string): Partial<Record<Parameter, string>> {
  if (!/^postgres(?:ql)?:\/\//i.test(text)) {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
    throw new TypeError(
      scheme === undefined || scheme === 'postgres' || scheme === 'postgresql'
        ? NOT_A_URL
        : `${NOT_A_URL}; got a ${scheme}: URL`,
    );
  }
  const list = splitUrlHosts(text);
  const url = list?.url ?? text;
  const beforeFragment = url.split('#', 1)[0]!;
  const queryAt = beforeFragment.indexOf('?');
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt));
  } catch (error) {
    // Its errors never hold the URL, and neither do these (it may hold a password).
    throw new TypeError(
      error instanceof URIError ? 'connectionString has percent-encoding that is not valid UTF-8' : NOT_A_URL,
    );
  }
  const values: Partial<Record<Parameter, string>> = {};
  const take = (name: Parameter, value: string | null | undefined) => {
    if (value !== undefined && value !== null && value !== '') values[name] = value;
  };
  take('host', list === undefined ? parsed.host : list.host);
  take('port', list === undefined ? parsed.port : list.port);
  take('user', parsed.user);
  take('password', parsed.password);
  take('dbname', parsed.database);
  const query = queryAt === -1 ? '' : beforeFragment.slice(queryAt + 1);
  for (const [name, value] of new URLSearchParams(query)) {
    if (!(URL_PARAMETERS as readonly string[]).includes(name)) {
      throw new TypeError(
        `connectionString has the parameter ${JSON.stringify(name)}, which the PostgreSQL store does not know; it knows ${URL_PARAMETERS.join(', ')}`,
      );
    }
    values[name as Parameter] = value;
  }
  return values;
}

const NOT_A_URL = 'connectionString must be a postgres:// or postgresql:// URL';

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new TypeError(`cannot read the ${what} file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}
