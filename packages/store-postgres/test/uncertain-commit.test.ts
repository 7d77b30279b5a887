// A commit whose outcome the store cannot know: the connection to PostgreSQL breaks after the statement
// that commits was sent (in autocommit the insert itself; behind a pooler, the COMMIT) and before its
// answer came. The tests' TCP proxy resets the connection at that moment, either dropping the statement
// (it never reaches the server: not committed) or the server's answer (committed). Either way the store
// answers 503 saying the outcome is unknown, never 200, and the same insert sent again answers 200: a
// replay of the stored plant, or a create.
import { inspect } from 'node:util';
import { StoreUnavailableError } from '@plant-store/core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startPgBouncer, type TestPgBouncer } from '../../../test/support/pgbouncer.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { describeWithTools } from '../../../test/support/system-tools.js';
import { type ChunkDirection, startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.mjs';
import { createPostgresStore, type PostgresStore } from '../src/index.js';

let db: TestDatabase;
const opened: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  db = await openTestDatabase();
}, 180_000);
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close();
});
afterAll(() => db?.close());

/** A proxy in front of `url`'s server, and `url` through it. */
async function proxied(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(url);
  const proxy = await startTcpProxy({ target: { host: direct.hostname, port: Number(direct.port) } });
  opened.push(proxy);
  direct.port = String(proxy.port);
  return { proxy, url: direct.href };
}

async function open(url: string): Promise<PostgresStore> {
  const store = await createPostgresStore({ connectionString: url, schema: db.schema, table: db.table() });
  opened.push(store);
  return store;
}

/**
 * Resets the first connection on which a chunk going `direction` carries `marker`, dropping that chunk;
 * every other chunk passes. Resolves once it has.
 */
function resetOnce(proxy: TcpProxy, direction: ChunkDirection, ...markers: string[]): Promise<void> {
  return new Promise((resolve) => {
    proxy.intercept((chunk, way) => {
      if (way !== direction || !markers.some((marker) => chunk.includes(marker))) return 'pass';
      proxy.intercept(undefined);
      resolve();
      return 'reset';
    });
  });
}

/** What the store's insert statement starts with on the wire: its Parse (text) or, once named, its Bind (name). */
const INSERT_STATEMENT = ['INSERT INTO', 'plant_store_insert_'];
/** The tag of the insert's CommandComplete, which PostgreSQL flushes with ReadyForQuery, after the commit. */
const INSERT_ANSWER = 'INSERT 0 ';

const outcome = (insert: Promise<unknown>): Promise<unknown> => insert.catch((error: unknown) => error);

function expectUnknown(outcome: unknown): void {
  expect(StoreUnavailableError.is(outcome), `not a 503: ${inspect(outcome)}`).toBe(true);
  expect((outcome as Error).message).toMatch(
    /was lost during the insert, so whether it committed is unknown; a retry replays or creates it: /,
  );
}

const stored = async (store: PostgresStore) =>
  (await db.query<{ id: string }>(`SELECT id::text AS id FROM ${store.table} ORDER BY id`)).map((row) => row.id);

type Plant = { id: bigint; name: string };

/**
 * A new store on `url`'s server through a proxy that resets the first connection on which a chunk
 * going `direction` carries a marker, after `plants` were inserted at once (one statement) and each
 * answered the 503 of an unknown outcome.
 */
async function insertCut(url: string, direction: ChunkDirection, markers: string[], plants: Plant[]) {
  const { proxy, url: through } = await proxied(url);
  const store = await open(through);
  const cut = resetOnce(proxy, direction, ...markers);
  const outcomes = await Promise.all(plants.map((plant) => outcome(store.insert(plant))));
  await cut;
  for (const each of outcomes) expectUnknown(each);
  expect(store.stats().statements).toBe(1);
  return store;
}

const replays = async (store: PostgresStore, plant: Plant) =>
  expect(await store.insert(plant)).toEqual({ created: false, existing: plant });

it('answers 503 when the answer to its committed insert is lost, and 200 to the retry, a replay', async () => {
  const fern = { id: 1n, name: 'Fern' };
  const store = await insertCut(db.url, 'to-client', [INSERT_ANSWER], [fern]);
  expect(await stored(store)).toEqual(['1']);
  await replays(store, fern);
});

it('answers 503 when its insert is lost before the server, and 200 to the retry, a create', async () => {
  const moss = { id: 2n, name: 'Moss' };
  const store = await insertCut(db.url, 'to-server', INSERT_STATEMENT, [moss]);
  expect(await stored(store)).toEqual([]);
  expect(await store.insert(moss)).toEqual({ created: true });
});

it('answers 503 to every insert of a statement whose committed answer is lost, and 200 to each retry', async () => {
  const plants = [3n, 4n, 5n].map((id) => ({ id, name: `plant ${id}` }));
  const store = await insertCut(db.url, 'to-client', [INSERT_ANSWER], plants);
  expect(await stored(store)).toEqual(['3', '4', '5']);
  for (const plant of plants) await replays(store, plant);
});

describeWithTools(['pgbouncer'], 'behind PgBouncer in transaction mode, each insert its own transaction', () => {
  let bouncer: TestPgBouncer;
  beforeAll(async () => {
    bouncer = await startPgBouncer(db.url, 'transaction');
  });
  afterAll(() => bouncer?.close());

  it('answers 503 when the answer to its COMMIT is lost, and 200 to the retry, a replay', async () => {
    const oak = { id: 6n, name: 'Oak' };
    const store = await insertCut(bouncer.url, 'to-client', ['COMMIT'], [oak]);
    expect(await stored(store)).toEqual(['6']);
    await replays(store, oak);
  });

  it('answers 503 when its COMMIT is lost before PgBouncer, and 200 to the retry, a create', async () => {
    const ivy = { id: 7n, name: 'Ivy' };
    // The transaction PgBouncer's server connection held ends with it, uncommitted: the retry creates.
    const store = await insertCut(bouncer.url, 'to-server', ['COMMIT'], [ivy]);
    expect(await store.insert(ivy)).toEqual({ created: true });
  });
});
