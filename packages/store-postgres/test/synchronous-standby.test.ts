// The store on a primary whose synchronous standby is gone (a real primary and streaming standby, the
// standby stopped): each commit then waits for the standby, and PostgreSQL ends that wait only when the
// standby returns or the waiting backend is cancelled or terminated, never by the statement timeout.
// A cancelled wait leaves the commit done on the primary alone, with a WARNING and a success; the store
// answers 503 then, never 200, and answers a replay of a plant only once the standby has it too. The
// rule that tells such a WARNING from others, whatever the server's language, in process.
import { inspect } from 'node:util';
import { StoreUnavailableError } from '@plant-store/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ReplicatedDatabase, startReplicatedPostgres } from '../../../test/support/replication.js';
import { abandonsStandbyWait } from '../src/internal/standby-wait.js';
import { createPostgresStore, type PostgresStore } from '../src/index.js';

let db: ReplicatedDatabase;
beforeAll(async () => {
  db = await startReplicatedPostgres({ synchronous: true });
}, 180_000);
afterAll(() => db?.close());

let tables = 0;
async function open(statementTimeout = 20_000): Promise<PostgresStore> {
  return createPostgresStore({
    connectionString: `${db.primary.url}?sslmode=disable`,
    table: `sync_standby_${tables++}`,
    statementTimeout,
  });
}

/** What an insert came to: its result, or what it rejected with. */
const outcome = (insert: Promise<unknown>): Promise<unknown> => insert.catch((error: unknown) => error);

/**
 * The store's backends waiting for the synchronous standby, once there are `count`; none if `settled`
 * settles first (an insert that did not wait).
 */
async function waitingForStandby(count: number, settled?: Promise<unknown>): Promise<number[]> {
  let done = false;
  void settled?.finally(() => {
    done = true;
  });
  let pids: number[] = [];
  await until(`${count} backends waiting for the standby`, async () => {
    const rows = await db.queryPrimary<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'plant-store' AND wait_event = 'SyncRep'`,
    );
    pids = rows.map((row) => row.pid);
    return done || pids.length >= count;
  });
  return done ? [] : pids;
}

const signal = (fn: 'pg_cancel_backend' | 'pg_terminate_backend', pids: number[]) =>
  db.queryPrimary(`SELECT pg_catalog.${fn}(pid) FROM unnest($1::int[]) AS pid`, [pids]);

/** Polls `condition` every 20 ms until it holds; throws naming `what` after 10 s. */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const idsOnPrimary = async (store: PostgresStore) =>
  (await db.queryPrimary<{ id: string }>(`SELECT id::text AS id FROM ${store.table} ORDER BY id`)).map((row) => row.id);

/** Resolves once the standby shows `ids`: it confirms a commit once flushed, and shows it once replayed. */
const standbyShows = (store: PostgresStore, ids: string[]) =>
  until(`the standby showing ${ids.join(', ')}`, async () => {
    const rows = await db.queryStandby<{ id: string }>(`SELECT id::text AS id FROM ${store.table} ORDER BY id`);
    return rows.map((row) => row.id).join() === ids.join();
  });

/** Resolves once no statement of `store` is in flight: an insert it answered by its own clock has ended. */
const settled = (store: PostgresStore) => until('no statement in flight', () => store.stats().inFlight === 0);

/** `outcome` is the store's 503 (StoreUnavailableError) with a message matching `message`. */
function expectUnavailable(outcome: unknown, message: RegExp): void {
  expect(StoreUnavailableError.is(outcome), `not a 503: ${inspect(outcome)}`).toBe(true);
  expect((outcome as Error).message).toMatch(message);
}

const UNCONFIRMED =
  /committed on the primary, but its synchronous standby has not confirmed it, so it is not acknowledged; a retry replays it once the standby has it: /;

/**
 * Opens a store, runs `whileGone` with the standby stopped, then `once` it streams again, and closes
 * the store.
 */
async function withStandbyGone(
  options: { statementTimeout?: number },
  whileGone: (store: PostgresStore) => Promise<void>,
  once: (store: PostgresStore) => Promise<void>,
): Promise<void> {
  const store = await open(options.statementTimeout);
  try {
    await db.stopStandby();
    try {
      await whileGone(store);
    } finally {
      await db.startStandby();
    }
    await once(store);
  } finally {
    await store.close();
  }
}

/** A plant inserted again answers 200 with the stored plant. */
const replays = async (store: PostgresStore, plant: { id: bigint; name: string }) =>
  expect(await store.insert(plant)).toEqual({ created: false, existing: plant });

it('answers 503, never 200, to the inserts of a statement whose wait for the synchronous standby is cancelled', async () => {
  await withStandbyGone(
    {},
    async (store) => {
      // Made in one turn of the event loop: one statement carries the three.
      const batch = Promise.all([2n, 3n, 4n].map((id) => outcome(store.insert({ id, name: `plant ${id}` }))));
      await signal('pg_cancel_backend', await waitingForStandby(1, batch));
      for (const error of await batch) {
        expectUnavailable(error, UNCONFIRMED);
        expectUnavailable(error, /canceling wait for synchronous replication due to user request \(01000\)$/);
      }
      expect(store.stats().statements).toBe(1);
      // What PostgreSQL did: committed on the primary all the same.
      expect(await idsOnPrimary(store)).toEqual(['2', '3', '4']);
    },
    (store) => replays(store, { id: 2n, name: 'plant 2' }),
  );
}, 60_000);

it('answers a replay 503 while the synchronous standby has not confirmed the plant, and 200 once it has', async () => {
  const fern = { id: 5n, name: 'Fern' };
  await withStandbyGone(
    {},
    async (store) => {
      const first = outcome(store.insert(fern));
      await signal('pg_cancel_backend', await waitingForStandby(1, first));
      expectUnavailable(await first, UNCONFIRMED);
      // The row is on the primary, so the retry creates nothing and reads it: a read that must not
      // answer 200 for a commit the standby may not have.
      const retry = outcome(store.insert(fern));
      await signal('pg_cancel_backend', await waitingForStandby(1, retry));
      expectUnavailable(await retry, UNCONFIRMED);
    },
    async (store) => {
      // The standby caught up once it streamed again: the replay's own wait for it ends at once.
      await replays(store, fern);
      await standbyShows(store, ['5']);
    },
  );
}, 60_000);

it('answers 503 when the backend waiting for the synchronous standby is terminated (57P01), saying the insert committed on the primary', async () => {
  const moss = { id: 6n, name: 'Moss' };
  await withStandbyGone(
    {},
    async (store) => {
      const insert = outcome(store.insert(moss));
      await signal('pg_terminate_backend', await waitingForStandby(1, insert));
      const error = await insert;
      expectUnavailable(error, UNCONFIRMED);
      expectUnavailable(error, /terminating connection due to administrator command \(57P01\)$/);
      expect(await idsOnPrimary(store)).toEqual(['6']);
    },
    (store) => replays(store, moss),
  );
}, 60_000);

it('answers 503 by its own clock when the standby is gone, since the statement timeout does not end a wait for it', async () => {
  const oak = { id: 7n, name: 'Oak' };
  const statementTimeout = 1_000;
  await withStandbyGone(
    { statementTimeout },
    async (store) => {
      const started = Date.now();
      expectUnavailable(
        await outcome(store.insert(oak)),
        /did not acknowledge the insert within the statement timeout \(1 s\), so whether it committed is unknown/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(statementTimeout);
      // Its backend still waits for the standby, past the statement timeout (the timeout ended nothing)
      // and once the store has given up the statement and closed its connection.
      await settled(store);
      await signal('pg_cancel_backend', await waitingForStandby(1));
      // Committed on the primary once cancelled; a retry reads it and waits for the standby in turn.
      expectUnavailable(
        await outcome(store.insert(oak)),
        /did not acknowledge the insert within the statement timeout/,
      );
      await settled(store);
      await signal('pg_cancel_backend', await waitingForStandby(1));
    },
    (store) => replays(store, oak),
  );
}, 60_000);

it("answers 200 to an insert during which the server sends a WARNING of another kind (a trigger's RAISE WARNING)", async () => {
  const store = await open();
  try {
    await db.queryPrimary(
      `CREATE FUNCTION public.warn_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE WARNING 'a warning of its own'; RETURN NEW; END $$`,
    );
    await db.queryPrimary(
      `CREATE TRIGGER warn BEFORE INSERT ON ${store.table} FOR EACH ROW EXECUTE FUNCTION public.warn_on_insert()`,
    );
    expect(await store.insert({ id: 8n, name: 'Ivy' })).toEqual({ created: true });
    await replays(store, { id: 8n, name: 'Ivy' });
  } finally {
    await store.close();
  }
});

it.each([
  [
    'a cancelled wait, in English',
    {
      code: '01000',
      message: 'canceling wait for synchronous replication due to user request',
      routine: 'SyncRepWaitForLSN',
    },
    true,
  ],
  [
    'a terminated wait (57P01)',
    {
      code: '57P01',
      message: 'canceling the wait for synchronous replication and terminating connection due to administrator command',
      routine: 'SyncRepWaitForLSN',
    },
    true,
  ],
  [
    'a cancelled wait from a server whose lc_messages is German',
    {
      code: '01000',
      message: 'breche Warten auf synchrone Replikation ab wegen Benutzeraufforderung',
      routine: 'SyncRepWaitForLSN',
    },
    true,
  ],
  [
    'a cancelled wait, in English, through a proxy that drops the routine',
    { code: '01000', message: 'canceling wait for synchronous replication due to user request' },
    true,
  ],
  [
    'a German cancelled wait through a proxy that drops the routine',
    { code: '01000', message: 'breche Warten auf synchrone Replikation ab wegen Benutzeraufforderung' },
    false,
  ],
  ["a trigger's RAISE WARNING", { code: '01000', message: 'a warning of its own', routine: 'exec_stmt_raise' }, false],
  [
    "a trigger's RAISE WARNING that names synchronous replication",
    { code: '01000', message: 'synchronous replication is slow today', routine: 'exec_stmt_raise' },
    false,
  ],
  ['a notice of another SQLSTATE without a routine', { code: '01P01', message: 'synchronous replication' }, false],
])('tells a wait for the synchronous standby given up from other notices: %s', (_, notice, expected) => {
  expect(abandonsStandbyWait(notice)).toBe(expected);
});
