// Several servers in one connection string, as libpq reads them: `host=a,b port=p,q`, a URL whose
// authority lists `host:port` pairs, or PGHOST/PGPORT lists; and `target_session_attrs`, which says
// which of them may be used. The hosts are tried in the order given. Owned here: pg-connection-string,
// which reads the store's URLs, has no host lists (a URL that lists ports is invalid to it, and
// `db1,db2` one host name), no target_session_attrs, and no keyword/value form.

/** One server of the list. */
export interface Host {
  readonly host: string;
  readonly port: number;
}

/**
 * libpq's `target_session_attrs` values the store accepts: `any` takes the first server that accepts a
 * connection; `read-write` the first whose sessions may write (`transaction_read_only` off);
 * `primary` the first that is not in recovery (not a standby).
 */
export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

const ACCEPTED: readonly string[] = ['any', 'read-write', 'primary'];
/** libpq's values that would pick a server that cannot take the store's writes. */
const READ_ONLY: readonly string[] = ['read-only', 'standby', 'prefer-standby'];

const DEFAULT_HOST = 'localhost';
const DEFAULT_PORT = 5432;

/**
 * The servers of a host list and a port list (each comma-separated; undefined when not given). libpq's
 * rules: as many ports as hosts, or one port for every host; an empty item is the default.
 */
export function resolveHosts(hostText: string | undefined, portText: string | undefined): Host[] {
  const hosts = (hostText ?? '').split(',').map((each) => each.trim());
  const ports = (portText ?? '').split(',').map((each) => each.trim());
  if (ports.length !== 1 && ports.length !== hosts.length) {
    throw new TypeError(
      `the PostgreSQL port list must have one port, or one for each of the ${hosts.length} hosts; got ${ports.length} ports`,
    );
  }
  return hosts.map((host, index) => ({
    host: host === '' ? DEFAULT_HOST : host,
    port: parsePort(ports.length === 1 ? ports[0]! : ports[index]!),
  }));
}

function parsePort(text: string): number {
  if (text === '') return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535)
    throw new TypeError(`the PostgreSQL port must be 1 to 65535; got ${JSON.stringify(text)}`);
  return port;
}

/** `target_session_attrs` (default `any`), refusing the values that lead to a server that cannot write. */
export function resolveTargetSessionAttrs(text: string | undefined): TargetSessionAttrs {
  if (text === undefined) return 'any';
  if (ACCEPTED.includes(text)) return text as TargetSessionAttrs;
  if (READ_ONLY.includes(text)) {
    throw new TypeError(
      `target_session_attrs=${text} would connect the plant store to a server that cannot take its writes; use read-write or primary (to follow a failover), or any`,
    );
  }
  throw new TypeError(
    `target_session_attrs must be one of ${ACCEPTED.join(', ')}; got ${JSON.stringify(text)} (the store writes, so ${READ_ONLY.join(', ')} are refused)`,
  );
}

/** `host:port` of each server, comma-separated: how messages name the database. */
export function describeHosts(hosts: readonly Host[]): string {
  return hosts.map(hostName).join(',');
}

/** `host:port` (`[v6]:port` for an IPv6 address). */
export function hostName({ host, port }: Host): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * A postgres:// URL whose authority lists several servers (`u:p@db1:5432,db2:5433`), which the WHATWG
 * URL parser refuses, split into a URL with one placeholder host and the host and port lists as
 * libpq's `host` and `port` parameters would give them. Undefined for a URL of one host.
 */
export function splitUrlHosts(text: string): { url: string; host: string; port: string } | undefined {
  const start = /^postgres(?:ql)?:\/\//i.exec(text)?.[0].length;
  if (start === undefined) return undefined;
  const end = text.slice(start).search(/[/?#]/);
  const authority = end === -1 ? text.slice(start) : text.slice(start, start + end);
  const at = authority.lastIndexOf('@');
  const list = authority.slice(at + 1);
  if (!list.includes(',')) return undefined;
  const hosts: string[] = [];
  const ports: string[] = [];
  for (const item of list.split(',')) {
    const match = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d*))?$/.exec(item);
    if (match === null)
      throw new TypeError('connectionString has a host list whose items are not host, host:port or [address]:port');
    hosts.push(decodeHost(match[1]!.replace(/^\[(.*)\]$/, '$1')));
    ports.push(match[2] ?? '');
  }
  const rest = end === -1 ? '' : text.slice(start + end);
  return {
    url: `${text.slice(0, start)}${authority.slice(0, at + 1)}multiple-hosts.invalid${rest}`,
    host: hosts.join(','),
    port: ports.every((port) => port === '') ? '' : ports.join(','),
  };
}

function decodeHost(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new TypeError('the host in connectionString is not valid percent-encoding');
  }
}

/**
 * libpq's keyword/value connection string (`host=db1,db2 port=5432 dbname=plants password='a b'`):
 * values bare or single-quoted, a backslash escaping the next character. Keywords other than `known`
 * are refused; the message never repeats a value (one may be a password).
 */
export function parseKeywordValue(text: string, known: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  for (skipSpace(); at < text.length; skipSpace()) {
    const keyword = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at))?.[0];
    if (keyword === undefined)
      throw new TypeError('connectionString is neither a postgres:// URL nor keyword=value pairs');
    at += keyword.length;
    skipSpace();
    // Not named: after an unquoted space, it may be the rest of a password.
    if (text[at] !== '=')
      throw new TypeError(
        'connectionString has a word without "=" and a value: separate keyword=value pairs by spaces, and quote a value that has spaces',
      );
    at++;
    skipSpace();
    let value = '';
    const quoted = text[at] === "'";
    if (quoted) at++;
    for (;;) {
      const char = text[at];
      if (char === undefined) {
        if (quoted) throw new TypeError(`the value of ${keyword} in connectionString has no closing quote`);
        break;
      }
      if (quoted ? char === "'" : /\s/.test(char)) {
        if (quoted) at++;
        break;
      }
      if (char === '\\' && at + 1 < text.length) at++;
      value += text[at];
      at++;
    }
    if (!known.includes(keyword)) {
      throw new TypeError(
        `connectionString has the keyword ${JSON.stringify(keyword)}, which the PostgreSQL store does not know; it knows ${known.join(', ')}`,
      );
    }
    values[keyword] = value;
  }
  return values;
}

/** Whether a connection string is libpq's keyword/value form rather than a URL. */
export function isKeywordValue(text: string): boolean {
  return /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text);
}
