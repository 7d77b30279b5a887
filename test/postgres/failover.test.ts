// A failover under load, with real processes and real signals: a primary and a streaming standby
// (test/support/replication.ts), two plant-store-server processes given both in one libpq host list
// with target_session_attrs=read-write, a load of new plants that records every answer, then the
// primary SIGKILLed (postmaster and backends) and the standby promoted. The servers follow by
// themselves: 503 while no server accepts writes, never a 500 or a hang, and serving within 5 s of the
// promotion. With synchronous replication no acknowledged plant is lost; with asynchronous replication
// the commits the standby had not received when the primary died are lost, and counted.
import { afterEach, expect, it } from 'vitest';
import { startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { describeWithTools } from '../support/system-tools.js';
import { type ReplicatedDatabase, startReplicatedPostgres } from '../support/replication.js';
import {
  answeredDifferently,
  errorCode,
  lostPlants,
  type Query,
  type Sent,
  servingAgain,
  startLoad,
  startServers,
  waitFor,
  waitForOutage,
  waitForServing,
} from './traffic.js';

let db: ReplicatedDatabase | undefined;
const bouncers: TestPgBouncer[] = [];
afterEach(async () => {
  for (const bouncer of bouncers.splice(0)) await bouncer.close();
  await db?.close();
  db = undefined;
});

const describeSent = (each: Sent) =>
  `${each.id} to server ${each.server} (${each.phase}): ${each.answer ? `${each.answer.status} ${each.answer.body}` : each.error}`;
const unavailable = (each: Sent) =>
  each.answer?.status === 503 && errorCode(each.answer.body) === 50301 && /^\d+$/.test(each.answer.retryAfter ?? '');

interface Outcome {
  readonly sent: readonly Sent[];
  readonly acknowledged: readonly Sent[];
  readonly lost: readonly bigint[];
  /** From the promotion to each server's first 200 for a create sent since. */
  readonly serveAgain: readonly number[];
  readonly serverExits: number;
  /** When the promotion began: a create sent before may be answered after it, with a 200. */
  readonly promoting: number;
  /** The servers, still running. */
  readonly origins: readonly string[];
}

/**
 * Two servers (with `extra` flags) on the host list under load; the primary killed, the standby
 * promoted. `behindPgBouncer`: each PostgreSQL behind its own PgBouncer in transaction mode, and the
 * host list names the PgBouncers.
 */
async function failOver(
  synchronous: boolean,
  table: string,
  extra: readonly string[] = [],
  behindPgBouncer = false,
): Promise<Outcome> {
  const replicas = await startReplicatedPostgres({ synchronous });
  db = replicas;
  let ports = [replicas.primary.port, replicas.standby.port];
  if (behindPgBouncer) {
    for (const url of [replicas.primary.url, replicas.standby.url])
      bouncers.push(await startPgBouncer(url, 'transaction'));
    ports = bouncers.map((bouncer) => bouncer.port);
  }
  const password = new URL(replicas.primary.url).password;
  const servers = await startServers([
    '--database',
    `postgres://postgres:${password}@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/postgres?target_session_attrs=read-write`,
    '--database-table',
    table,
    ...extra,
  ]);
  // The banner names every server of the list (never the password).
  expect(servers[0]!.run.stdout).toContain(
    `Database: ${ports.map((port) => `127.0.0.1:${port}`).join(',')}, table "public"."${table}"`,
  );
  const origins = servers.map((server) => server.origin);
  let phase: 'up' | 'down' | 'promoting' | 'promoted' = 'up';
  const load = startLoad({ origins, concurrency: 32, phase: () => phase, maxMs: 60_000 });
  let promoted = 0;
  let promoting = Number.POSITIVE_INFINITY;
  try {
    await waitFor(20_000, '500 creates acknowledged', () => load.acknowledged().length >= 500);
    await replicas.primary.kill();
    phase = 'down';
    await waitForOutage(load, phase, Date.now(), origins.length);
    // While pg_promote() runs, the standby may begin to take writes before it returns.
    phase = 'promoting';
    promoting = Date.now();
    await replicas.promote();
    promoted = Date.now();
    phase = 'promoted';
    await waitForServing(load, phase, origins.length, undefined, servers);
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await load.stop();
  }
  const sent = load.sent;
  const acknowledged = sent.filter((each) => each.answer?.status === 200);
  const query: Query = (sql, values) => replicas.queryStandby(sql, values);
  // The new primary's table first: sending again would create a lost plant anew.
  const lost = await lostPlants(query, `"public"."${table}"`, acknowledged);
  const serveAgain = servingAgain(sent, 'promoted', promoted, origins.length);
  const serverExits = servers.filter((server) => server.run.child.exitCode !== null).length;
  const whileDown = sent.filter((each) => each.phase === 'down');
  console.log(
    `failover (${synchronous ? 'synchronous' : 'asynchronous'} replication${extra.length > 0 ? `, ${extra.join(' ')}` : ''}` +
      `${behindPgBouncer ? `, behind ${bouncers[0]!.version} in transaction mode` : ''}): ` +
      `${sent.length} creates sent, ${acknowledged.length} acknowledged, ${lost.length} acknowledged plants missing ` +
      `on the new primary; ${whileDown.length} sent without a primary: ${whileDown.filter(unavailable).length} ` +
      `answered 503, ${whileDown.filter((each) => each.answer?.status === 200).length} answered 200 once the standby took writes; ${sent.filter((each) => each.answer?.status === 503).length} 503s in all, ` +
      `${sent.filter((each) => each.answer?.status !== 200 && !unavailable(each)).length} other answers or failures, ` +
      `${sent.filter((each) => each.answer?.resent).length} sent again after the keep-alive race; ` +
      `serving again ${serveAgain.map((ms) => `${ms} ms`).join(' and ')} after the promotion`,
  );
  return { sent, acknowledged, lost, serveAgain, serverExits, origins, promoting };
}

/**
 * What holds with either replication: only 200 or 503, serving again within 5 s, no server down, and
 * few creates sent again after the keep-alive race (sendCreate, as @plant-store/client would): one
 * stall of this process can leave a few idle connections past their time at once, but more than one
 * create in a hundred means the agent no longer drops its idle connections in time.
 */
function expectFollowed(outcome: Outcome): void {
  expect(outcome.sent.filter((each) => each.answer?.status !== 200 && !unavailable(each)).map(describeSent)).toEqual(
    [],
  );
  expect(outcome.sent.filter((each) => each.answer?.resent).length).toBeLessThanOrEqual(outcome.sent.length / 100);
  // Sent and answered without a primary: 503. Sent then and answered once the standby took writes: 200
  // or 503, and a 200 is then in the new primary's table (lost is checked by the callers).
  expect(
    outcome.sent
      .filter((each) => each.phase === 'down' && each.answeredAt < outcome.promoting && !unavailable(each))
      .map(describeSent),
  ).toEqual([]);
  // The service's rule: serving again within 5 s of a primary accepting writes.
  for (const ms of outcome.serveAgain) expect(ms).toBeLessThan(5_000);
  expect(outcome.serverExits).toBe(0);
}

it('follows a failover with synchronous replication: no acknowledged plant lost or answered differently, only 200 or 503, serving within 5 s of the promotion', async () => {
  const outcome = await failOver(true, 'failover_synchronous');
  expectFollowed(outcome);
  expect(outcome.lost).toEqual([]);
  expect(await answeredDifferently(outcome.origins, outcome.acknowledged)).toEqual([]);
}, 240_000);

it('follows a failover with asynchronous replication, counting the acknowledged plants the standby never received', async () => {
  const outcome = await failOver(false, 'failover_asynchronous');
  expectFollowed(outcome);
  // What asynchronous replication may lose is the operator's choice (docs/postgres.md): counted above,
  // not asserted.
}, 240_000);

it('follows a failover with --workers 2 on the host list and synchronous replication, losing no acknowledged plant', async () => {
  const outcome = await failOver(true, 'failover_workers', ['--workers', '2']);
  expectFollowed(outcome);
  expect(outcome.lost).toEqual([]);
}, 240_000);

describeWithTools(['pgbouncer'], 'behind PgBouncer', () => {
  it('follows a failover behind PgBouncer in transaction mode with --workers 2, losing no acknowledged plant', async () => {
    const outcome = await failOver(true, 'failover_pgbouncer', ['--workers', '2'], true);
    expectFollowed(outcome);
    expect(outcome.lost).toEqual([]);
  }, 240_000);
});
