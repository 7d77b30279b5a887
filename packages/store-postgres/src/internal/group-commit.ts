// Group commit: inserts that arrive together go to PostgreSQL as one multi-row statement, with a bounded
// number of statements in flight. Each id has one candidate in this process (the first insert of it);
// later inserts of that id, while the candidate waits or is in flight, get the candidate's result
// instead of a statement of their own. Across processes, `ON CONFLICT (id) DO NOTHING` on the primary
// key leaves one winner per id; a candidate the statement did not create gets the stored row from a
// SELECT that follows, a new statement that sees the winner another server committed. A batch is
// acknowledged only if no commit of it was left unconfirmed by the synchronous standby.
import {
  StoreUnavailableError,
  traceLink,
  type InsertResult,
  type StoredPlant,
  type StoreSpan,
  type TraceLink,
} from '@plant-store/core';
import { PostgresStoreError, sqlStateOf } from '../postgres-store-error.js';
import type { PostgresPool, PostgresPoolClient, PostgresStoreStats } from '../types.js';
import {
  BATCH_EVENTS,
  type BatchSpanTemplate,
  batchSpanTemplate,
  connectionAttributes,
  startBatchSpan,
  statusCodeAttributes,
} from './batch-span.js';
import { insertStatement, selectStatement } from './batch-statements.js';
import { holdClient, ignore } from './checkout.js';
import { FailoverPool } from './failover.js';
import { breaksConnection, describe, isPreparedStatementTrouble, isUnavailable } from './failures.js';
import type { LostStatements } from './lost-statements.js';
import { type PlantColumns, parameterArrays, plantOfRow, textLength } from './plant-columns.js';
import { noticeError, type StandbyWatch, unconfirmedMessage, watchStandbyWait } from './standby-wait.js';

/** Rows in one statement at most, and the characters of their strings: a bound on its size. */
const MAX_BATCH_ROWS = 500;
const MAX_BATCH_CHARS = 4_000_000;
/** How often a candidate whose row vanished between the insert and the select is tried again. */
const MAX_ATTEMPTS = 3;

interface Waiter {
  readonly resolve: (result: InsertResult) => void;
  readonly reject: (error: unknown) => void;
  /** The trace context the insert was made in, for the batch's span to link to; undefined when untraced. */
  readonly link: TraceLink | undefined;
}

interface Candidate {
  readonly plant: StoredPlant;
  /** The id as decimal text, as it is sent and as it comes back. */
  readonly key: string;
  /** The candidate's own insert first, then the inserts of the same id that joined it. */
  readonly waiters: Waiter[];
  attempts: number;
}

/** A statement's place among those in flight, and how to give it up (its connection thrown away). */
interface Slot {
  freed: boolean;
  /** Throws the statement's connection away (once it has one). */
  abandon: (error: Error) => void;
  /** Throws the connection away and frees the place, for the next statement to go on another. */
  readonly giveUp: (error: Error) => void;
  /** Why it was given up, if it was. */
  reason?: Error;
}

/** A row as the driver gives it: a property per column, int8 as decimal text. */
type Row = Record<string, unknown>;

interface StatementNames {
  readonly insert: string;
  readonly select: string;
}

export interface GroupCommitOptions {
  readonly pool: PostgresPool;
  /** The table, schema-qualified and quoted. */
  readonly table: string;
  /** The table as configured, `schema.table` unquoted: what the batches' spans name. */
  readonly collection: string;
  /** The columns of the plant's shape, which the statements name (a table may have more). */
  readonly columns: PlantColumns;
  /** Statements in flight at most. */
  readonly maxInFlight: number;
  /** Names for prepared statements (parsed once per connection), or undefined for unnamed ones. */
  readonly statementNames: StatementNames | undefined;
  /**
   * Drop the names for good at the first 42P05/26000 (a pooler sharing server connections between
   * sessions), and run that statement again unnamed: it did not run, since its Parse or Bind failed.
   */
  readonly unnamedOnTrouble: boolean;
  /** Milliseconds: run each statement in a transaction that sets its own statement_timeout (behind a pooler). */
  readonly transactionTimeout: number | undefined;
  /** `host:port`, for messages. */
  readonly target: string;
  /** The driver's type parsers with int8 as text, passed with every query. */
  readonly types: unknown;
  /**
   * Milliseconds after which a statement is given up (0: never): past the statement timeout it can
   * only be one whose answer is lost (a cut network), so its connection is thrown away and the next
   * statement goes on another, instead of waiting for the driver to give up on it.
   */
  readonly slotTimeout?: number;
  /** Gives up sooner a statement whose answer the network lost, when the database can say so. */
  readonly lostStatements?: LostStatements;
}

export class GroupCommit {
  readonly #options: GroupCommitOptions;
  readonly #candidates = new Map<bigint, Candidate>();
  #queue: Candidate[] = [];
  #inFlight = 0;
  #flushScheduled = false;
  #idle: (() => void)[] = [];
  #statements = 0;
  #rows = 0;
  readonly #insertSql: string;
  readonly #selectSql: string;
  #names: StatementNames | undefined;
  readonly #span: BatchSpanTemplate;

  constructor(options: GroupCommitOptions) {
    this.#options = options;
    this.#names = options.statementNames;
    this.#insertSql = insertStatement(options.table, options.columns);
    this.#selectSql = selectStatement(options.table, options.columns);
    this.#span = batchSpanTemplate(options.collection);
  }

  /** Resolves once `plant` (already checked) is committed, or the id's stored plant is read. */
  insert(plant: StoredPlant): Promise<InsertResult> {
    return new Promise((resolve, reject) => {
      // Taken now, while the caller's trace context is the active one.
      const link = traceLink();
      const joined = this.#candidates.get(plant.id);
      if (joined !== undefined) {
        joined.waiters.push({ resolve, reject, link });
        return;
      }
      const candidate: Candidate = { plant, key: String(plant.id), waiters: [{ resolve, reject, link }], attempts: 0 };
      this.#candidates.set(plant.id, candidate);
      this.#enqueue(candidate);
    });
  }

  /** Statements sent and rows they carried, statements in flight, candidates waiting for one. */
  stats(): PostgresStoreStats {
    return { statements: this.#statements, rows: this.#rows, inFlight: this.#inFlight, queued: this.#queue.length };
  }

  /** Resolves once nothing waits and nothing is in flight. */
  drained(): Promise<void> {
    if (this.#candidates.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #enqueue(candidate: Candidate): void {
    this.#queue.push(candidate);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // Inserts made in the same turn of the event loop share the statement.
    queueMicrotask(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#queue.length > 0) {
      let chars = 0;
      let take = 0;
      while (take < this.#queue.length && take < MAX_BATCH_ROWS) {
        const plant = this.#queue[take]!.plant;
        chars += textLength(this.#options.columns, plant);
        if (take > 0 && chars > MAX_BATCH_CHARS) break;
        take++;
      }
      const batch = this.#queue.splice(0, take);
      const span = startBatchSpan(this.#span, batch);
      this.#inFlight++;
      this.#statements++;
      this.#rows += batch.length;
      const free = () => {
        if (slot.freed) return;
        slot.freed = true;
        clearTimeout(timer);
        this.#inFlight--;
        this.#flush();
      };
      const slot: Slot = {
        freed: false,
        abandon: ignore,
        giveUp: (error) => {
          slot.reason ??= error;
          slot.abandon(error);
          free();
        },
      };
      const timer = this.#options.slotTimeout
        ? setTimeout(
            () => slot.giveUp(new Error(`Connection terminated: no answer within ${this.#options.slotTimeout} ms`)),
            this.#options.slotTimeout,
          )
        : undefined;
      // With the batch's span active and a driver's own instrumentation silent (see StoreSpan.run).
      void (
        span === undefined ? this.#run(batch, slot, undefined) : span.run(() => this.#run(batch, slot, span))
      ).finally(free);
    }
  }

  /**
   * One statement for `batch`, then a select for the ids it did not create; settles every waiter, then
   * ends the batch's span.
   */
  async #run(batch: Candidate[], slot: Slot, span: StoreSpan | undefined): Promise<void> {
    let client: PostgresPoolClient | undefined;
    let release: (error?: Error) => void = ignore;
    let broken: unknown;
    let sent = false;
    let unwatch = ignore;
    let standby: StandbyWatch | undefined;
    let open = false;
    const timeout = this.#options.transactionTimeout;
    try {
      const { pool } = this.#options;
      // A failover's choice of a server is an event on the span of each batch that waits for it.
      client = await (pool instanceof FailoverPool ? pool.connect(span) : pool.connect());
      span?.setAttributes(connectionAttributes(client));
      release = holdClient(client);
      slot.abandon = release;
      // Given up while it waited for the connection: the connection is sound, and nothing is sent.
      if (slot.freed) {
        release(undefined);
        throw slot.reason ?? new Error('Connection terminated: the statement was given up before it was sent');
      }
      unwatch =
        this.#options.lostStatements?.watch(client, () => {
          span?.event(BATCH_EVENTS.lostStatement);
          slot.giveUp(
            new Error(
              'Connection terminated: the database never received the statement or finished it long ago, and no answer came (the network lost it)',
            ),
          );
        }) ?? ignore;
      standby = watchStandbyWait(client);
      sent = true;
      if (timeout !== undefined) {
        // One simple-protocol message: the transaction and its timeout cost one round trip.
        await client.query({ text: `BEGIN; SET LOCAL statement_timeout = ${timeout}` });
        open = true;
      }
      const { columns } = this.#options;
      const key = columns.key.name;
      const inserted = await this.#statement<Row>(
        client,
        span,
        'insert',
        this.#insertSql,
        parameterArrays(columns, batch),
      );
      const created = new Set(inserted.rows.map((row) => row[key] as string));
      const taken = batch.filter((c) => !created.has(c.key));
      const stored = new Map<string, Row>();
      if (taken.length > 0) {
        const found = await this.#statement<Row>(client, span, 'select', this.#selectSql, [taken.map((c) => c.key)]);
        for (const row of found.rows) stored.set(row[key] as string, row);
      }
      if (open) {
        await client.query({ text: 'COMMIT' });
        open = false;
      }
      const abandoned = standby.abandoned();
      if (abandoned !== undefined) throw noticeError(abandoned);
      for (const candidate of batch) {
        if (created.has(candidate.key)) {
          this.#settle(candidate, (waiter, i) =>
            waiter.resolve(i === 0 ? { created: true } : { created: false, existing: candidate.plant }),
          );
          continue;
        }
        const row = stored.get(candidate.key);
        if (row !== undefined) {
          const existing = plantOfRow(columns, row);
          this.#settle(candidate, (waiter) => waiter.resolve({ created: false, existing }));
        } else if (++candidate.attempts < MAX_ATTEMPTS) {
          // Taken when inserted, gone when read: deleted in between (by hand). Insert it again.
          this.#enqueue(candidate);
        } else {
          const error = new Error(
            `plant ${candidate.key} was taken in ${this.#options.table} at ${this.#options.target} but could not be read back: its row keeps being deleted`,
          );
          this.#settle(candidate, (waiter) => waiter.reject(error));
        }
      }
    } catch (thrown) {
      // Given up by the store: its reason says more than the driver's "Connection terminated".
      const error = slot.reason ?? thrown;
      // A wait for the standby given up says more than a connection lost after it (57P01 ends the
      // session): the commit is on the primary.
      const abandoned = standby?.abandoned();
      if (breaksConnection(error)) broken = error;
      else if (open && client !== undefined) {
        // Back to a clean session before the connection goes back to the pool (and the pooler's server
        // connection back to its pool); one that cannot roll back is thrown away.
        await client.query({ text: 'ROLLBACK' }).catch((rollback: unknown) => {
          broken = rollback;
        });
      }
      const failure =
        abandoned !== undefined
          ? new StoreUnavailableError(unconfirmedMessage(abandoned, this.#options.target), { cause: error })
          : isUnavailable(error)
            ? new StoreUnavailableError(unavailableMessage(error, this.#options.target, sent), { cause: error })
            : unexpected(error, this.#options.table, this.#options.target);
      span?.fail(failure, statusCodeAttributes(abandoned ?? error));
      for (const candidate of batch) this.#settle(candidate, (waiter) => waiter.reject(failure));
    } finally {
      unwatch();
      standby?.stop();
      // A connection that failed is thrown away, not handed to the next batch.
      release(broken === undefined ? undefined : (broken as Error));
      span?.end();
    }
  }

  /** One of the store's two statements, named while names are in use. */
  async #statement<Row>(
    client: PostgresPoolClient,
    span: StoreSpan | undefined,
    which: keyof StatementNames,
    text: string,
    values: unknown[],
  ): Promise<{ rows: Row[] }> {
    const name = this.#names?.[which];
    try {
      return await client.query<Row>({ ...(name !== undefined && { name }), text, values, types: this.#options.types });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // Never inside a transaction: the store sets one up only behind a pooler it found at start, and
      // then has no names to drop.
      if (name === undefined || !this.#options.unnamedOnTrouble || !isPreparedStatementTrouble(code)) throw error;
      this.#names = undefined;
      span?.event(BATCH_EVENTS.poolerFallback, statusCodeAttributes(error));
      return client.query<Row>({ text, values, types: this.#options.types });
    }
  }

  #settle(candidate: Candidate, each: (waiter: Waiter, index: number) => void): void {
    if (this.#candidates.get(candidate.plant.id) === candidate) this.#candidates.delete(candidate.plant.id);
    candidate.waiters.forEach(each);
    if (this.#candidates.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}

/**
 * What a failure means for an insert, in words: whether the plant may have been stored matters to an
 * operator. `sent` says whether the statement had left for the database.
 */
function unavailableMessage(error: unknown, target: string, sent: boolean): string {
  const code = (error as { code?: unknown }).code;
  if (code === '57014')
    return `PostgreSQL at ${target} did not finish the insert in time (statement timeout); nothing was acknowledged`;
  if (isPreparedStatementTrouble(code)) {
    return `PostgreSQL at ${target} is unavailable: ${describe(error)}; a pooler in transaction mode hands one session's prepared statements to another: set preparedStatements to 'auto' or false`;
  }
  if (sent && breaksConnection(error)) {
    return `the connection to PostgreSQL at ${target} was lost during the insert, so whether it committed is unknown; a retry replays or creates it: ${describe(error)}`;
  }
  return `PostgreSQL at ${target} is unavailable: ${describe(error)}`;
}

/**
 * A failure the store does not expect (a bug, or a table changed under it: 42P01, 42703, 22*, XX000…):
 * the app answers 500, and the message, which its log line carries, names the SQLSTATE.
 */
function unexpected(error: unknown, table: string, target: string): unknown {
  const code = sqlStateOf(error);
  if (code === undefined) return error;
  return new PostgresStoreError(
    'statement',
    target,
    `PostgreSQL at ${target} failed an insert into ${table} with SQLSTATE ${code}: ${(error as Error).message}`,
    { cause: error, sqlState: code },
  );
}
