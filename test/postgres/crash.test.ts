// Crashes under load, with real processes and real signals: two plant-store-server processes on one
// table of a PostgreSQL server this file starts itself (whatever PLANT_STORE_TEST_DATABASE_URL says: it
// kills and restarts it), and a load of new plants over keep-alive connections that records every answer.
// A plant is acknowledged (200) only once it is stored (docs/service.md), so after each crash every
// acknowledged plant must be in the table and must be answered the same when sent again; while the
// database is down the only answer is 503 with code 50301 and Retry-After, never a 200.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../support/postgres.js';
import {
  answeredDifferently,
  errorCode,
  type Load,
  lostPlants,
  type Query,
  type Sent,
  startLoad,
  servingAgain,
  startServers,
  waitFor,
  waitForOutage,
  waitForServing,
} from './traffic.js';

let database: EmbeddedDatabase;
beforeAll(async () => {
  database = await startEmbeddedPostgres();
}, 180_000);
afterAll(() => database?.close());

/** One statement on a connection of its own: the database may have been restarted since the last one. */
const query: Query = async <Row extends object>(sql: string, values?: unknown[]) => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as Row[];
  } finally {
    await client.end();
  }
};

const where = (table: string) => ['--database', database.url, '--database-table', table];
const describeSent = (each: Sent) =>
  `${each.id} to server ${each.server}: ${each.answer ? `${each.answer.status} ${each.answer.body}` : each.error}`;

/** Stops the load once `ms` more have passed (the traffic after the event), then returns what it sent. */
async function finish(load: Load, ms: number): Promise<readonly Sent[]> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  await load.stop();
  return load.sent;
}

it('keeps answering on the other server when one of two is SIGKILLed under load, with no acknowledged plant lost or answered differently', async () => {
  const [doomed, survivor] = await startServers(where('kill_one_server'));
  let phase = 'both up';
  const load = startLoad({
    origins: [doomed!.origin, survivor!.origin],
    concurrency: 32,
    phase: () => phase,
    maxMs: 20_000,
  });
  let sent: readonly Sent[];
  try {
    await waitFor(10_000, '500 creates acknowledged', () => load.acknowledged().length >= 500);
    doomed!.run.child.kill('SIGKILL');
    await waitFor(
      5_000,
      'the killed server gone',
      () => doomed!.run.child.exitCode !== null || doomed!.run.child.signalCode !== null,
    );
    phase = 'one killed';
    await waitFor(
      10_000,
      '500 creates acknowledged by the survivor since the kill',
      () => load.acknowledged().filter((each) => each.phase === 'one killed' && each.server === 1).length >= 500,
    );
  } finally {
    sent = await finish(load, 0);
  }

  const acknowledged = sent.filter((each) => each.answer?.status === 200);
  // The table first: sending again would create a lost plant anew.
  const lost = await lostPlants(query, '"public"."kill_one_server"', acknowledged);
  const different = await answeredDifferently([survivor!.origin], acknowledged);
  const unanswered = sent.filter((each) => each.answer === undefined).length;
  console.log(
    `SIGKILL one of two servers under load: ${sent.length} creates sent, ${acknowledged.length} acknowledged ` +
      `(${acknowledged.filter((each) => each.server === 0).length} by the killed server, ` +
      `${acknowledged.filter((each) => each.server === 1).length} by the survivor), ${unanswered} sent to the ` +
      `killed server left unanswered (cut in flight or refused), ${lost.length} lost, ` +
      `${different.length} answered differently afterwards`,
  );
  // The survivor answered every create it was sent with a 200; the killed server a 200 or nothing at all.
  expect(sent.filter((each) => each.server === 1 && each.answer?.status !== 200).map(describeSent)).toEqual([]);
  expect(
    sent
      .filter((each) => each.server === 0 && each.answer !== undefined && each.answer.status !== 200)
      .map(describeSent),
  ).toEqual([]);
  expect(lost).toEqual([]);
  expect(different).toEqual([]);
  expect(survivor!.run.child.exitCode).toBe(null);
}, 30_000);

it('answers only 503 while the whole database is SIGKILLed under load, serves again once it is back, and loses no acknowledged plant', async () => {
  const servers = await startServers(where('kill_database'));
  const origins = servers.map((server) => server.origin);
  let phase: 'up' | 'down' | 'restarting' | 'back' = 'up';
  const load = startLoad({ origins, concurrency: 32, phase: () => phase, maxMs: 30_000 });
  let back = 0;
  let sent: readonly Sent[];
  try {
    await waitFor(10_000, '500 creates acknowledged', () => load.acknowledged().length >= 500);
    await database.kill();
    phase = 'down';
    // Down for a second at least, and both servers asked many times meanwhile.
    await waitForOutage(load, phase, Date.now(), origins.length, 50, 10_000);
    // From here the database may begin to accept connections before start() returns: no rule but the
    // general one (a 200 only for a committed plant) applies to creates sent meanwhile.
    phase = 'restarting';
    await database.start();
    back = Date.now();
    phase = 'back';
    // Both servers serve again by themselves; the time is asserted below.
    await waitForServing(load, phase, origins.length, undefined, servers);
  } finally {
    sent = await finish(load, 500);
  }

  const acknowledged = sent.filter((each) => each.answer?.status === 200);
  const whileDown = sent.filter((each) => each.phase === 'down');
  const unavailable = (each: Sent) =>
    each.answer?.status === 503 && errorCode(each.answer.body) === 50301 && /^\d+$/.test(each.answer.retryAfter ?? '');
  // From the database accepting connections to each server's first 200 for a create sent since.
  const serveAgain = servingAgain(sent, 'back', back, origins.length);
  // The table first: sending again would create a lost plant anew.
  const lost = await lostPlants(query, '"public"."kill_database"', acknowledged);
  const different = await answeredDifferently(origins, acknowledged);
  console.log(
    `SIGKILL the database under load: ${sent.length} creates sent, ${acknowledged.length} acknowledged, ` +
      `${lost.length} lost, ${different.length} answered differently afterwards; ${whileDown.length} sent while ` +
      `it was down: ${whileDown.filter(unavailable).length} answered 503 (50301, Retry-After), ` +
      `${whileDown.filter((each) => each.answer?.status === 200).length} answered 200; ` +
      `${sent.filter((each) => each.answer?.status === 503).length} 503s in all; serving again ` +
      `${serveAgain.map((ms) => `${ms} ms`).join(' and ')} after the database accepted connections`,
  );
  expect(whileDown.filter((each) => !unavailable(each)).map(describeSent)).toEqual([]);
  // Every other create got a 200 or that 503: no connection cut, no other failure.
  expect(sent.filter((each) => each.answer?.status !== 200 && !unavailable(each)).map(describeSent)).toEqual([]);
  expect(lost).toEqual([]);
  expect(different).toEqual([]);
  // The service's rule: serving again within 5 s of the database accepting connections.
  for (const ms of serveAgain) expect(ms).toBeLessThan(5_000);
  expect(servers.filter((server) => server.run.child.exitCode !== null).length).toBe(0);
}, 45_000);
