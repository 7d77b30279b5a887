// The span of each group commit, by OpenTelemetry's conventions for database clients: a CLIENT span
// `INSERT <schema>.<table>`, started as the batch leaves the queue and ended once every insert it
// carries is answered, the child of the first request it serves and linked to each of them. The core
// starts it through the OpenTelemetry API the app's SDK registered. A batch none of whose inserts was
// made in a traced request (no SDK registered, or inserts called outside any span) has none, and
// costs nothing here: a look at each waiter's link.
import { startStoreSpan, type SpanAttributes, type StoreSpan, type TraceLink } from '@plant-store/core';
import { sqlStateOf } from '../postgres-store-error.js';
import type { PostgresPoolClient } from '../types.js';

/** The events of a batch's span: what the store did for the batch besides its statements. */
export const BATCH_EVENTS = {
  /**
   * The server in use broke a connection or refused a write as read-only, so the store chose a server
   * again before the batch's connection: `plant_store.failover.from` and `.to` (none when no server
   * qualified) as `host:port`.
   */
  failover: 'plant_store.failover',
  /**
   * A named statement met another session's statements (42P05 or 26000, a pooler in transaction mode):
   * the names are dropped for good and the statement runs unnamed. `db.response.status_code` says which.
   */
  poolerFallback: 'plant_store.pooler_fallback',
  /**
   * The database said the backend of the batch's statement has long been idle: the network lost the
   * statement or its answer, and the store gives it up.
   */
  lostStatement: 'plant_store.lost_statement',
} as const;

/** The name and the first attributes of the spans of one table's batches, made once per store. */
export interface BatchSpanTemplate {
  readonly name: string;
  readonly attributes: SpanAttributes;
}

/** The spans of batches into `collection`, the table as configured (`schema.table`, unquoted). */
export function batchSpanTemplate(collection: string): BatchSpanTemplate {
  return {
    name: `INSERT ${collection}`,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT', 'db.collection.name': collection },
  };
}

/** What the span needs of a batch: its rows, each with the inserts waiting on it. */
type Rows = readonly { readonly waiters: readonly { readonly link: TraceLink | undefined }[] }[];

/**
 * The span of `batch`, linked to every insert waiting on it now; undefined, with nothing allocated,
 * when none of them was traced.
 */
export function startBatchSpan(template: BatchSpanTemplate, batch: Rows): StoreSpan | undefined {
  let links: TraceLink[] | undefined;
  for (const { waiters } of batch) {
    for (const { link } of waiters) {
      if (link === undefined) continue;
      if (links === undefined) links = [link];
      else links.push(link);
    }
  }
  if (links === undefined) return undefined;
  return startStoreSpan({
    name: template.name,
    kind: 'client',
    // The conventions set the batch size only on a batch: one row is a single operation.
    attributes:
      batch.length > 1 ? { ...template.attributes, 'db.operation.batch.size': batch.length } : template.attributes,
    links,
  });
}

/**
 * Where the batch's connection is: the server it is open to (of a host list, the one in use; a
 * pooler, when there is one) and the database. What a `pg.Client` knows; a pool of another kind may
 * not say.
 */
export function connectionAttributes(client: PostgresPoolClient): SpanAttributes {
  const { host, port, database } = client as { host?: unknown; port?: unknown; database?: unknown };
  return {
    'server.address': typeof host === 'string' ? host : undefined,
    'server.port': typeof port === 'number' ? port : undefined,
    'db.namespace': typeof database === 'string' ? database : undefined,
  };
}

/** `db.response.status_code`: the SQLSTATE the database answered `error` with, if it did. */
export function statusCodeAttributes(error: unknown): SpanAttributes | undefined {
  const sqlState = sqlStateOf(error);
  return sqlState === undefined ? undefined : { 'db.response.status_code': sqlState };
}
