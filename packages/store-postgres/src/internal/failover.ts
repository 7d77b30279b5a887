// Following a failover across the servers of a host list, as libpq does for each new connection:
// the store uses the first server, in the order given, that accepts a connection and qualifies under
// target_session_attrs. `pg` has no host lists, so this keeps one `pg.Pool` for the server in use and
// chooses again when that server goes away or turns read-only: a connection to it breaks, or a write
// is refused with 25006 (read-only transaction). Until a server qualifies, connecting fails with an
// error the store answers with 503, and the servers are asked again at most every RETRY_PAUSE ms.
import type { StoreSpan } from '@plant-store/core';
import type { OwnedPool, PostgresPoolClient } from '../types.js';
import { BATCH_EVENTS } from './batch-span.js';
import { boundedQuery } from './bounded-query.js';
import { ignore } from './checkout.js';
import { breaksConnection, describe, isFatalAtStart, isUnavailable } from './failures.js';
import { describeHosts, type Host, hostName, type TargetSessionAttrs } from './hosts.js';

export interface FailoverPoolOptions {
  readonly hosts: readonly Host[];
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** The pool's bound on connections, as every server's pool has it. */
  readonly max: number;
  /** How long the question to a server that accepted a connection may take. */
  readonly checkTimeout: number;
  /** Opens a pool of connections to one server (a `pg.Pool`). */
  open(host: Host): OwnedPool;
}

/** How long a round that found no server that qualifies is its answer, so a burst asks the servers once. */
const RETRY_PAUSE = 250;

/** libpq asks `transaction_read_only` for read-write and `pg_is_in_recovery()` for primary. */
const CHECK_SQL = `SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only`;

interface InUse {
  readonly index: number;
  readonly pool: OwnedPool;
}

/** A pool over a host list: every connection goes to the server that qualifies now. */
export class FailoverPool {
  readonly #settings: FailoverPoolOptions;
  #current: InUse | undefined;
  /** Whether the server in use must be checked again before the next connection. */
  #stale = true;
  #choosing: Promise<InUse> | undefined;
  #failed: { readonly error: Error; readonly until: number } | undefined;
  #ended = false;

  constructor(settings: FailoverPoolOptions) {
    this.#settings = settings;
  }

  /** `max`, and the server in use (the first of the list before one is chosen). */
  get options(): { max: number; host: string; port: number } {
    const { host, port } = this.#settings.hosts[this.#current?.index ?? 0]!;
    return { max: this.#settings.max, host, port };
  }

  get totalCount(): number {
    return this.#current?.pool.totalCount ?? 0;
  }

  get idleCount(): number {
    return this.#current?.pool.idleCount ?? 0;
  }

  get waitingCount(): number {
    return this.#current?.pool.waitingCount ?? 0;
  }

  /**
   * A connection to the server that qualifies now. When the server must be chosen again first, `span`
   * (the span of the batch the connection is for) gets the failover event: the server in use before,
   * and the one chosen, if any qualified.
   */
  async connect(span?: StoreSpan): Promise<PostgresPoolClient> {
    if (this.#ended) throw new Error('the PostgreSQL pool has ended');
    const inUse =
      this.#stale || this.#current === undefined
        ? await (span === undefined ? this.#choose() : this.#chooseFor(span))
        : this.#current;
    let client: PostgresPoolClient;
    try {
      client = await inUse.pool.connect();
    } catch (error) {
      this.#noteFailure(error, inUse);
      throw error;
    }
    return this.#watch(client, inUse);
  }

  /** Ends the pool in use once its connections are released; later connections are refused. */
  async end(): Promise<void> {
    this.#ended = true;
    await this.#choosing?.catch(() => undefined);
    await this.#current?.pool.end();
  }

  /** `client`, noticing the failures that mean the server in use may be gone or read-only. */
  #watch(client: PostgresPoolClient, inUse: InUse): PostgresPoolClient {
    const watched: PostgresPoolClient & { processID: unknown; host: unknown; port: unknown; database: unknown } = {
      query: async (config) => {
        try {
          return await client.query(config);
        } catch (error) {
          this.#noteFailure(error, inUse);
          throw error;
        }
      },
      release: (error) => {
        if (error instanceof Error) this.#noteFailure(error, inUse);
        client.release(error);
      },
      // The backend's process id, which lost-statements.ts asks the database about.
      processID: (client as { processID?: unknown }).processID,
      // Where the connection is open to, for the batch's span (batch-span.ts).
      host: (client as { host?: unknown }).host,
      port: (client as { port?: unknown }).port,
      database: (client as { database?: unknown }).database,
      on: client.on.bind(client),
      removeListener: client.removeListener.bind(client),
    };
    return watched;
  }

  #noteFailure(error: unknown, inUse: InUse): void {
    if (inUse !== this.#current) return;
    if ((error as { code?: unknown }).code === '25006' || (isUnavailable(error) && breaksConnection(error)))
      this.#stale = true;
  }

  /** {@link #choose}, with the failover event on `span`: the server in use before, and the one chosen (if any). */
  async #chooseFor(span: StoreSpan): Promise<InUse> {
    const from = this.#nameOf(this.#current);
    let chosen: InUse | undefined;
    try {
      chosen = await this.#choose();
      return chosen;
    } finally {
      span.event(BATCH_EVENTS.failover, {
        'plant_store.failover.from': from,
        'plant_store.failover.to': this.#nameOf(chosen),
      });
    }
  }

  /** `host:port` of the server `inUse` is on. */
  #nameOf(inUse: InUse | undefined): string | undefined {
    return inUse === undefined ? undefined : hostName(this.#settings.hosts[inUse.index]!);
  }

  /** The server to use now: one round over the list at a time, shared by every caller meanwhile. */
  #choose(): Promise<InUse> {
    if (this.#failed !== undefined && Date.now() < this.#failed.until) return Promise.reject(this.#failed.error);
    this.#choosing ??= this.#findServer().finally(() => {
      this.#choosing = undefined;
    });
    return this.#choosing;
  }

  async #findServer(): Promise<InUse> {
    const { hosts, targetSessionAttrs } = this.#settings;
    const reasons: { readonly host: Host; readonly error: unknown }[] = [];
    // The server in use first: while it still qualifies the store stays, so an old primary that comes
    // back (listed first, say) does not take writes again because of one broken connection.
    const order = hosts.map((_, index) => index);
    if (this.#current !== undefined)
      order.sort((a, b) => Number(b === this.#current!.index) - Number(a === this.#current!.index));
    for (const index of order) {
      const host = hosts[index]!;
      // The server in use is asked on its own pool; another gets a new one, kept only if it qualifies.
      const reused = this.#current?.index === index ? this.#current : undefined;
      const pool = reused?.pool ?? this.#settings.open(host);
      const reason = await this.#check(pool);
      if (reason === QUALIFIES && !this.#ended) {
        const previous = this.#current;
        const chosen = reused ?? { index, pool };
        this.#current = chosen;
        this.#stale = false;
        this.#failed = undefined;
        // The old server's connections finish what they run, then close.
        if (previous !== undefined && previous !== chosen) void previous.pool.end().catch(ignore);
        return chosen;
      }
      reasons.push({ host, error: reason });
      if (reused === undefined) void pool.end().catch(ignore);
    }
    // A fault that waiting cannot cure (a wrong password, TLS refused, a pooler's refusal) is reported
    // as it is.
    const fault = reasons.find((reason) => isFatalAtStart(reason.error));
    if (fault !== undefined) throw fault.error;
    const wanted = targetSessionAttrs === 'any' ? 'accepts a connection' : `qualifies as ${targetSessionAttrs}`;
    const error = new AggregateError(
      reasons.map((reason) => reason.error),
      `no PostgreSQL server of ${describeHosts(hosts)} ${wanted} (target_session_attrs): ${reasons.map((reason) => `${hostName(reason.host)}: ${describe(reason.error)}`).join('; ')}`,
    );
    this.#failed = { error, until: Date.now() + RETRY_PAUSE };
    throw error;
  }

  /** {@link QUALIFIES} when the server of `pool` accepts a connection and qualifies; else why not. */
  async #check(pool: OwnedPool): Promise<unknown> {
    let client: PostgresPoolClient;
    try {
      // Bounded by the pool's connect timeout.
      client = await pool.connect();
    } catch (error) {
      return error;
    }
    if (this.#settings.targetSessionAttrs === 'any') {
      client.release();
      return QUALIFIES;
    }
    try {
      // A server that accepted the connection but does not answer (a cut path) must not hold the round.
      const [row] = await boundedQuery<{ recovery: boolean; read_only: string }>(
        client,
        { text: CHECK_SQL },
        this.#settings.checkTimeout,
      );
      if (this.#settings.targetSessionAttrs === 'primary' ? row?.recovery === false : row?.read_only === 'off')
        return QUALIFIES;
      // 25006, read-only transaction: what a write there would be refused with.
      return Object.assign(
        new Error(row?.recovery ? 'a standby (in recovery)' : 'read-only (transaction_read_only is on)'),
        { code: '25006' },
      );
    } catch (error) {
      return error;
    }
  }
}

/** What `FailoverPool`'s check gives for a server that qualifies. */
const QUALIFIES = Symbol('qualifies');
