// A failover behind PgBouncer: a primary and a streaming standby, each behind its own PgBouncer in
// transaction mode at its defaults, and two plant-store-server processes with --workers 2 given both
// PgBouncers in one libpq host list with target_session_attrs=read-write. Under load the primary is
// SIGKILLed and the standby promoted; the servers follow by themselves, as they do without PgBouncer
// (failover.test.ts): only 200 or 503, no acknowledged plant lost with synchronous replication, serving
// within 5 s of the promotion.
import { afterEach, expect, it } from 'vitest';
import { startPgBouncer, type TestPgBouncer } from '../support/pgbouncer.js';
import { type ReplicatedDatabase, startReplicatedPostgres } from '../support/replication.js';
import {
  errorCode,
  lostPlants,
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

const unavailable = (each: Sent) => each.answer?.status === 503 && errorCode(each.answer.body) === 50301;
const describeSent = (each: Sent) =>
  `${each.id} to server ${each.server} (${each.phase}): ${each.answer ? `${each.answer.status} ${each.answer.body}` : each.error}`;

it('follows a failover behind PgBouncer in transaction mode with --workers 2: only 200 or 503, nothing acknowledged lost, serving within 5 s of the promotion', async () => {
  const replicas = await startReplicatedPostgres({ synchronous: true });
  db = replicas;
  for (const url of [replicas.primary.url, replicas.standby.url])
    bouncers.push(await startPgBouncer(url, 'transaction'));
  const password = new URL(replicas.primary.url).password;
  const hostList = `postgres://postgres:${password}@${bouncers.map((b) => `127.0.0.1:${b.port}`).join(',')}/postgres?target_session_attrs=read-write`;
  const table = 'failover_pgbouncer';
  const servers = await startServers(['--database', hostList, '--database-table', table, '--workers', '2']);
  const origins = servers.map((server) => server.origin);
  let phase: 'up' | 'down' | 'promoting' | 'promoted' = 'up';
  const load = startLoad({ origins, concurrency: 32, phase: () => phase, maxMs: 60_000 });
  let promoted = 0;
  try {
    await waitFor(20_000, '500 creates acknowledged', () => load.acknowledged().length >= 500);
    await replicas.primary.kill();
    phase = 'down';
    await waitForOutage(load, phase, Date.now(), origins.length);
    phase = 'promoting';
    await replicas.promote();
    promoted = Date.now();
    phase = 'promoted';
    await waitForServing(load, phase, origins.length);
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await load.stop();
  }
  const sent = load.sent;
  const acknowledged = sent.filter((each) => each.answer?.status === 200);
  const lost = await lostPlants(
    (sql, values) => replicas.queryStandby(sql, values),
    `"public"."${table}"`,
    acknowledged,
  );
  const serveAgain = servingAgain(sent, 'promoted', promoted, origins.length);
  console.log(
    `failover behind ${bouncers[0]!.version} (transaction mode, synchronous replication, --workers 2): ` +
      `${sent.length} creates sent, ${acknowledged.length} acknowledged, ${lost.length} missing on the new primary; ` +
      `${sent.filter(unavailable).length} 503s, ${sent.filter((each) => each.answer?.status !== 200 && !unavailable(each)).length} ` +
      `other answers or failures; serving again ${serveAgain.map((ms) => `${ms} ms`).join(' and ')} after the promotion`,
  );
  expect(sent.filter((each) => each.answer?.status !== 200 && !unavailable(each)).map(describeSent)).toEqual([]);
  expect(lost).toEqual([]);
  for (const ms of serveAgain) expect(ms).toBeLessThan(5_000);
  expect(servers.filter((server) => server.run.child.exitCode !== null).length).toBe(0);
}, 240_000);
