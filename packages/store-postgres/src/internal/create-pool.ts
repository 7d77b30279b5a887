// The pool the store makes from its connection settings: one `pg.Pool`, or, for a host list or a
// target_session_attrs other than any, a pool that follows a failover across the servers.
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import type { OwnedPool } from '../types.js';
import type { ConnectionSettings } from './connection-settings.js';
import { FailoverPool } from './failover.js';
import { DEFAULTS } from './options.js';

/** How the store sizes and times the pools it makes. Times in milliseconds. */
export interface PoolOptions {
  readonly poolSize: number;
  readonly statementTimeout: number;
  readonly connectTimeout: number;
  /**
   * A pooler is in front of the database, which refuses the statement timeout as a start-up parameter
   * (PgBouncer, unless told to ignore it): it is not sent, and the store sets it in each transaction.
   */
  readonly behindPooler: boolean;
}

/** Idle time of a connection before TCP keepalive probes begin. */
const KEEPALIVE_IDLE = 10_000;

/** A pool on `settings`, with TLS as `ssl` says (the start may settle on none, for sslmode=prefer). */
export function createPool(
  settings: ConnectionSettings,
  options: PoolOptions,
  ssl: ConnectionOptions | false,
): OwnedPool {
  if (settings.hosts.length > 1 || settings.targetSessionAttrs !== 'any') {
    return new FailoverPool({
      hosts: settings.hosts,
      targetSessionAttrs: settings.targetSessionAttrs,
      max: options.poolSize,
      checkTimeout: options.connectTimeout || DEFAULTS.connectTimeout,
      open: (host) => createPool({ ...settings, ...host, hosts: [host], targetSessionAttrs: 'any' }, options, ssl),
    });
  }
  const pool = new pg.Pool({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    ...(settings.password !== undefined && { password: settings.password }),
    database: settings.database,
    ssl,
    application_name: settings.applicationName,
    ...(settings.options !== undefined && { options: settings.options }),
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeout,
    ...(options.statementTimeout > 0 && {
      ...(!options.behindPooler && { statement_timeout: options.statementTimeout }),
      // The server's timeout cannot fire when the server itself stops answering: the driver's, a little
      // later, frees the connection then.
      query_timeout: options.statementTimeout + 2_000,
    }),
    keepAlive: true,
    // An idle connection whose server vanished without a word (a cut network) is found by TCP keepalive
    // probes after this, instead of the OS's two hours.
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE,
    idleTimeoutMillis: 30_000,
  });
  // A connection that dies while idle (the database restarts) is dropped by the pool; the next
  // statement opens a new one. Without a listener the error would end the process.
  pool.on('error', () => undefined);
  return pool as unknown as OwnedPool;
}
