// A connection out of the pool, from its check-out to its release: an 'error' listener while it is out
// (without one, an error the connection emits between statements would end the process), and one
// release, which throws the connection away when it failed instead of handing it to the next caller.
import type { PostgresPool, PostgresPoolClient } from '../types.js';
import { isUnavailable } from './failures.js';

/**
 * Holds `client`, checked out: listens for its errors until the release it returns, which may be
 * called any number of times and releases once (with an error: the connection is thrown away).
 */
export function holdClient(client: PostgresPoolClient): (error?: Error) => void {
  client.on('error', ignore);
  let released = false;
  return (error) => {
    if (released) return;
    released = true;
    // A connection thrown away keeps the listener: the pool ends it, and until it has closed the server
    // may still send it an error (57P01 as a primary shuts down, its answer to a statement given up),
    // which pg emits with no query to take it; unheard, it would end the process. A connection going
    // back to the pool drops it, for the pool's own listener takes over while it is idle.
    if (error === undefined) client.removeListener('error', ignore);
    client.release(error);
  };
}

/**
 * What `use` resolves to on a connection of `pool`, released afterwards: thrown away when `use` failed
 * because the database is unavailable, since the connection may be broken.
 */
export async function withClient<T>(pool: PostgresPool, use: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const release = holdClient(client);
  let broken: Error | undefined;
  try {
    return await use(client);
  } catch (error) {
    if (isUnavailable(error)) broken = error as Error;
    throw error;
  } finally {
    release(broken);
  }
}

/** Does nothing: a listener or a callback whose event needs no answer. */
export function ignore(): void {}
