// A question to the database on a path that may be cut: the statement is bounded by the store's own
// clock, and a connection that did not answer in time is thrown away.
import type { PostgresPoolClient } from '../types.js';
import { holdClient } from './checkout.js';

/** The rows of one statement on `client`, released afterwards: thrown away when it failed or passed `ms`. */
export async function boundedQuery<Row>(
  client: PostgresPoolClient,
  config: { text: string; values?: unknown[]; types?: unknown },
  ms: number,
): Promise<Row[]> {
  const release = holdClient(client);
  const timer = setTimeout(() => release(new Error(`Connection terminated: no answer within ${ms} ms`)), ms);
  try {
    const { rows } = await client.query<Row>(config);
    release();
    return rows;
  } catch (error) {
    release(error as Error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
