// The store under PostgreSQL as operators make it highly available (test/support/ha-cluster.ts): Patroni
// with etcd, two nodes in synchronous mode, HAProxy in front routing to the leader. Each event, a planned
// switchover (patronictl) or an unplanned failover (the leader's Patroni and postmaster SIGKILLed), is met
// by two plant-store-server processes at once, each under its own load of new plants: one given both
// nodes in a libpq host list with target_session_attrs=read-write, one given HAProxy's single address.
// With and without --workers 2: the two swap at each event, so each path meets each kind of event both
// ways. The events run in order on one cluster, each leader change undone by a later one, and a killed
// leader rejoins (pg_rewind, then the synchronous standby) before the next event. A client waits the
// Retry-After of a 503, as the API asks, so the share of 503s measures the outage rather than how
// often a client can ask in it. What must hold on both
// paths: no acknowledged plant missing on the new leader, only 200 or 503 answers, at most 1% answered 503
// in a planned switchover, and 200 again within Patroni's ttl + 5 s of a kill.
// `npm run test:ha` runs it (not `npm test`: minutes of failovers) on the built packages (`npm run build`).
// Each event prints one line a path; PLANT_STORE_HA_REPORT names a file for them as JSON.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorCode, type Load, lostPlants, type Sent, startLoad, startServers, waitFor } from '../postgres/traffic.js';
import { type HaCluster, startHaCluster } from '../support/ha-cluster.js';
import { type NodeName, PATRONI_TIMINGS } from '../support/patroni.js';
import { describeWithTools } from '../support/system-tools.js';

/** Set it to a file name to have each event's numbers written there as JSON. */
const REPORT_VARIABLE = 'PLANT_STORE_HA_REPORT';

/** Creates in flight at once on each path. */
const CLIENTS = 8;

/**
 * Creates each path has acknowledged before an event, and again after it, at least (and 2 s each way at
 * least): the window the 503s are counted in, as large on a slow machine as on a fast one.
 */
const STEADY_CREATES = 1500;

/** The most of a planned switchover's creates a path may answer with 503. */
const PLANNED_UNAVAILABLE_SHARE = 0.01;

/** How soon after a kill both paths must answer 200 again: the dead leader's key lasts up to ttl. */
const UNPLANNED_SERVING_MS = (PATRONI_TIMINGS.ttl + 5) * 1000;

type PathName = 'host list' | 'HAProxy';

interface Plan {
  readonly kind: 'switchover' | 'kill';
  readonly from: NodeName;
  readonly to: NodeName;
  /** Whether the host-list server runs with --workers 2 (then the HAProxy one runs as one process). */
  readonly hostListWorkers: boolean;
}

/** What one path saw of one event. */
interface PathReport {
  readonly event: string;
  readonly path: PathName;
  readonly workers: 1 | 2;
  readonly sent: number;
  readonly acknowledged: number;
  /** Acknowledged creates whose plant is not on the new leader as sent. */
  readonly lost: number;
  /** Answered 503 with the store-unavailable code. */
  readonly unavailable: number;
  /** Any other answer, or none. */
  readonly other: number;
  /** From the event's start to the 200 that ended the path's longest stretch without one. */
  readonly servingAgainMs: number;
}

interface RejoinReport {
  readonly event: string;
  /** Whether Patroni ran pg_rewind (it does when the old leader's WAL went past the new timeline's start). */
  readonly rewound: boolean;
  /** From its Patroni's start to streaming as the synchronous standby. */
  readonly syncStandbyAfterMs: number;
}

const isUnavailable = (each: Sent) => each.answer?.status === 503 && errorCode(each.answer.body) === 50301;
const describeSent = (each: Sent) =>
  `${each.id}: ${each.answer ? `${each.answer.status} ${each.answer.body}` : each.error}`;

/** Whether 2 s have passed since `since` and each load has {@link STEADY_CREATES} creates sent since then acknowledged. */
function steady(loads: readonly Load[], since: number): boolean {
  const acknowledgedSince = (load: Load) =>
    load.sent.filter((each) => each.sentAt >= since && each.answer?.status === 200).length;
  return Date.now() - since >= 2_000 && loads.every((load) => acknowledgedSince(load) >= STEADY_CREATES);
}

/** From `since` to the 200 that ended the longest stretch without a 200 answer: when the path served again. */
function endOfLongestOutage(sent: readonly Sent[], since: number): number {
  const answered = sent
    .filter((each) => each.answer?.status === 200 && each.answeredAt >= since)
    .map((each) => each.answeredAt)
    .sort((a, b) => a - b);
  let previous = since;
  let longest = -1;
  let end = since;
  for (const at of answered) {
    if (at - previous > longest) [longest, end] = [at - previous, at];
    previous = at;
  }
  return end - since;
}

describeWithTools(['patroni', 'etcd', 'haproxy', 'pg_rewind'], 'under Patroni with etcd and HAProxy', () => {
  let cluster: HaCluster | undefined;
  const reports: (PathReport | RejoinReport)[] = [];

  beforeAll(async () => {
    cluster = await startHaCluster();
    console.log(`[ha] ${cluster.versions()}; Patroni ${JSON.stringify(PATRONI_TIMINGS)}, synchronous mode`);
  }, 240_000);

  afterAll(async () => {
    await cluster?.close();
    const file = process.env[REPORT_VARIABLE];
    if (file) writeFileSync(file, `${JSON.stringify({ timings: PATRONI_TIMINGS, events: reports }, null, 2)}\n`);
  }, 60_000);

  /** Both servers under load through `plan`'s event; the numbers of each path, checked by the caller. */
  async function meet(plan: Plan, index: number): Promise<PathReport[]> {
    const ha = cluster!;
    await ha.waitForSyncStandby(plan.from, plan.to, 90_000);
    const event =
      plan.kind === 'switchover'
        ? `switchover ${plan.from} to ${plan.to}`
        : `${plan.from} killed (Patroni and postmaster), ${plan.to} takes over`;
    const paths = [
      { path: 'host list' as const, url: ha.hostListUrl(), workers: plan.hostListWorkers ? 2 : 1 },
      { path: 'HAProxy' as const, url: ha.haproxyUrl(), workers: plan.hostListWorkers ? 1 : 2 },
    ].map((each, at) => ({ ...each, table: `ha_event_${index}_${at}` }));
    const servers = await Promise.all(
      paths.map(({ url, table, workers }) =>
        startServers(['--database', url, '--database-table', table, ...(workers === 2 ? ['--workers', '2'] : [])], 1),
      ),
    );
    for (const [server] of servers) ha.adopt(server!.run.child);
    const loads = servers.map(([server]) =>
      startLoad({ origins: [server!.origin], concurrency: CLIENTS, maxMs: 240_000, waitRetryAfter: true }),
    );
    let began = 0;
    try {
      const loaded = Date.now();
      await waitFor(60_000, `2 s and ${STEADY_CREATES} creates acknowledged on each path`, () => steady(loads, loaded));
      began = Date.now();
      if (plan.kind === 'switchover') await ha.switchover(plan.from, plan.to);
      else await ha.kill(plan.from);
      await ha.waitForLeader(plan.to, (PATRONI_TIMINGS.ttl + 30) * 1000);
      const led = Date.now();
      // What follows the event is part of its window too.
      await waitFor(
        60_000,
        `2 s and ${STEADY_CREATES} creates acknowledged on each path since the new leader leads`,
        () => steady(loads, led),
      );
    } finally {
      await Promise.all(loads.map((load) => load.stop()));
    }
    return Promise.all(
      paths.map(async ({ path, table, workers }, at) => {
        const { sent } = loads[at]!;
        const acknowledged = loads[at]!.acknowledged();
        const lost = await lostPlants(
          <Row extends object>(sql: string, values?: unknown[]) => ha.query<Row>(plan.to, sql, values),
          `"public"."${table}"`,
          acknowledged,
        );
        const others = sent.filter((each) => each.answer?.status !== 200 && !isUnavailable(each));
        const report: PathReport = {
          event,
          path,
          workers: workers as 1 | 2,
          sent: sent.length,
          acknowledged: acknowledged.length,
          lost: lost.length,
          unavailable: sent.filter(isUnavailable).length,
          other: others.length,
          servingAgainMs: endOfLongestOutage(sent, began),
        };
        reports.push(report);
        console.log(
          `[ha] ${event}, ${path} (${workers === 2 ? '--workers 2' : 'one process'}): ${report.sent} creates sent, ` +
            `${report.acknowledged} acknowledged, ${report.lost} lost, ${report.unavailable} answered 503 ` +
            `(${((100 * report.unavailable) / report.sent).toFixed(2)}%), ${report.other} other; ` +
            `200 again ${report.servingAgainMs} ms after the event began`,
        );
        expect(others.slice(0, 5).map(describeSent), `${path}: answers other than 200 and 503`).toEqual([]);
        expect(lost.slice(0, 5), `${path}: acknowledged plants missing on ${plan.to}`).toEqual([]);
        return report;
      }),
    );
  }

  /** Starts `name`'s Patroni again on its data; it must rejoin as `leader`'s synchronous standby without a new copy. */
  async function rejoin(name: NodeName, leader: NodeName): Promise<void> {
    const ha = cluster!;
    ha.restart(name);
    const syncStandbyAfterMs = await ha.waitForSyncStandby(leader, name, 120_000);
    const log = ha.log(name, true);
    const report: RejoinReport = {
      event: `${name} rejoins`,
      rewound: log.includes('running pg_rewind from'),
      syncStandbyAfterMs,
    };
    reports.push(report);
    console.log(
      `[ha] ${report.event}: ${report.rewound ? 'rewound by pg_rewind' : 'no rewind needed'}, ` +
        `the synchronous standby ${syncStandbyAfterMs} ms after its Patroni started`,
    );
    // Back on its own data directory: no new base backup.
    expect(log).not.toContain('replica has been created using basebackup');
    if (report.rewound) expect(log).toContain('pg_rewind exit code=0');
  }

  const planned = async (plan: Plan, index: number) => {
    for (const report of await meet(plan, index)) {
      expect(report.unavailable, `${report.path}: 503s of ${report.sent}`).toBeLessThanOrEqual(
        report.sent * PLANNED_UNAVAILABLE_SHARE,
      );
    }
  };
  const unplanned = async (plan: Plan, index: number) => {
    for (const report of await meet(plan, index)) {
      expect(report.servingAgainMs, `${report.path}: ms to a 200 after the kill`).toBeLessThanOrEqual(
        UNPLANNED_SERVING_MS,
      );
    }
  };

  it('switchover node-a to node-b: nothing acknowledged lost, at most 1% answered 503, on both paths', async () => {
    await planned({ kind: 'switchover', from: 'node-a', to: 'node-b', hostListWorkers: false }, 1);
  }, 180_000);

  it('switchover back, node-b to node-a, the worker counts swapped: the same', async () => {
    await planned({ kind: 'switchover', from: 'node-b', to: 'node-a', hostListWorkers: true }, 2);
  }, 180_000);

  it(`node-a killed: nothing acknowledged lost, only 200 or 503, 200 again within ttl + 5 s (${UNPLANNED_SERVING_MS} ms)`, async () => {
    await unplanned({ kind: 'kill', from: 'node-a', to: 'node-b', hostListWorkers: false }, 3);
  }, 240_000);

  it('node-a rejoins: rewound if it must be, then the synchronous standby', async () => {
    await rejoin('node-a', 'node-b');
  }, 180_000);

  it('node-b killed, node-a takes over, the worker counts swapped: the same', async () => {
    await unplanned({ kind: 'kill', from: 'node-b', to: 'node-a', hostListWorkers: true }, 4);
  }, 240_000);

  it('node-b rejoins: rewound if it must be, then the synchronous standby', async () => {
    await rejoin('node-b', 'node-a');
  }, 180_000);

  it('switchover node-a to node-b after both rejoined: nothing acknowledged lost, at most 1% answered 503', async () => {
    await planned({ kind: 'switchover', from: 'node-a', to: 'node-b', hostListWorkers: false }, 5);
  }, 180_000);
});
