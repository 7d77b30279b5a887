// Statements whose answer a network lost. A path that drops bytes without a reset (a NAT or firewall
// that forgot the connection, a proxy cut and healed) leaves the store waiting for an answer that will
// never come, until the statement timeout; meanwhile the statement holds its connection and its place
// in flight, so the store serves again only that long after the path heals. The database can say
// sooner: a statement long outstanding whose backend has been idle for a while was never received, or
// its answer was lost, and its connection is given up at once. While the database cannot be asked,
// nothing is given up here: the statement timeout decides.
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from '../types.js';
import { boundedQuery } from './bounded-query.js';
import { ignore } from './checkout.js';

/** How long a statement is outstanding before the database is asked about it. */
const ASK_AFTER = 1_000;
/** How often the database is asked while a statement is outstanding that long; each question's bound. */
const ASK_EVERY = 500;
/** The bound on opening the connection that asks. */
const ASK_CONNECT_TIMEOUT = 1_000;

const IDLE_BACKENDS_SQL = `SELECT pid FROM pg_stat_activity WHERE pid = ANY ($1::int[]) AND state = 'idle' AND state_change < now() - interval '${ASK_EVERY} milliseconds'`;

interface Watched {
  readonly pid: number;
  readonly since: number;
  readonly giveUp: () => void;
}

export class LostStatements {
  readonly #watched = new Set<Watched>();
  #timer: NodeJS.Timeout | undefined;
  /** Set from the question's start until its connection attempt and statement have both settled. */
  #asking = false;
  readonly #connect: () => Promise<PostgresPoolClient>;

  constructor(pool: PostgresPool) {
    // A connection of its own, outside the pool, whose opening is bounded by a second: an attempt
    // made while the path was cut must not hold the question for the pool's whole connect timeout,
    // nor take a place the inserts need.
    this.#connect = pool instanceof pg.Pool ? () => ownConnection(pool.options) : () => pool.connect();
  }

  /**
   * Watches the statement about to be sent on `client`; `giveUp` is called if its answer is lost.
   * Returns the function that ends the watch. A connection whose backend is unknown (through a pooler
   * that does not pass it on) is not watched.
   */
  watch(client: PostgresPoolClient, giveUp: () => void): () => void {
    const pid = (client as { processID?: unknown }).processID;
    if (typeof pid !== 'number' || pid <= 0) return ignore;
    const entry: Watched = { pid, since: Date.now(), giveUp };
    this.#watched.add(entry);
    this.#timer ??= setInterval(() => void this.#ask(), ASK_EVERY).unref();
    return () => {
      this.#watched.delete(entry);
      if (this.#watched.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  async #ask(): Promise<void> {
    if (this.#asking) return;
    const now = Date.now();
    const due = [...this.#watched].filter((entry) => now - entry.since >= ASK_AFTER);
    if (due.length === 0) return;
    this.#asking = true;
    try {
      const rows = await boundedQuery<{ pid: number }>(
        await this.#connect(),
        { text: IDLE_BACKENDS_SQL, values: [due.map((entry) => entry.pid)] },
        ASK_EVERY,
      );
      const idle = new Set(rows.map((row) => row.pid));
      for (const entry of due) if (idle.has(entry.pid) && this.#watched.has(entry)) entry.giveUp();
    } catch {
      // The database cannot be asked either: the statement timeout decides.
    } finally {
      this.#asking = false;
    }
  }
}

/** A connection opened with the pool's settings, closed on release. */
async function ownConnection(options: pg.PoolConfig): Promise<PostgresPoolClient> {
  // pg.Pool keeps the password out of its options' enumerable keys, so it is named.
  const client = new pg.Client({
    ...options,
    password: options.password,
    connectionTimeoutMillis: ASK_CONNECT_TIMEOUT,
  });
  client.on('error', ignore);
  await client.connect();
  return {
    query: (config) => client.query(config as pg.QueryConfig) as never,
    release: () => void client.end().catch(ignore),
    on: client.on.bind(client),
    removeListener: client.removeListener.bind(client),
  };
}
