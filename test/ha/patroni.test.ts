// The store under PostgreSQL as operators make it highly available (test/support/ha-cluster.ts): Patroni
// with etcd, two nodes in synchronous mode, HAProxy in front routing to the leader. Each event is met by
// two plant-store-server processes at once, each under its own load of new plants: one given both nodes
// in a libpq host list with target_session_attrs=read-write, one given HAProxy's single address. With
// and without --workers 2: the two swap at each event, so each path meets each kind of event both ways.
// The events, in order on one cluster, each leaving it as the next one needs it:
// - a planned switchover (patronictl), unplanned failovers (the leader's Patroni and postmaster
//   SIGKILLed) of each node in turn, each killed leader rejoining (pg_rewind, then the synchronous
//   standby), and a planned switchover once both have rejoined;
// - network faults, made by blackholing a proxy of the harness (every byte dropped both ways, the
//   connections left open) rather than by killing anything: the leader cut from etcd while the servers
//   still reach it (it must demote itself and the standby take over), that cut healed (the old leader
//   rejoins), the leader cut from its synchronous standby (its commits wait), and the same with
//   Patroni's synchronous_mode_strict;
// - HAProxy stopped and started again.
// A client waits the Retry-After of a 503, as the API asks, so the share of 503s measures the outage
// rather than how often a client can ask in it, and sends the same create again, twice at most, as
// createPlant does: a replay, which must not acknowledge what the cluster could lose either. What must
// hold on both paths: no acknowledged plant missing on the leader afterwards, only 200 or 503 answers,
// at most 1% answered 503 in a planned switchover, 200 again within Patroni's ttl + 5 s of a kill or a
// cut from etcd; and, with the standby cut off, no create acknowledged that the standby does not hold
// while Patroni may still promote it.
// `npm run test:ha` runs it (not `npm test`: minutes of failovers) on the built packages (`npm run build`).
// Each event prints one line a path; PLANT_STORE_HA_REPORT names a file for them as JSON, which
// `npm run docs:ha` makes the table of docs/production.md from (scripts/ha-figures.mjs).
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { errorCode, type Load, lostPlants, type Sent, startLoad, startServers, waitFor } from '../postgres/traffic.js';
import { type HaCluster, startHaCluster } from '../support/ha-cluster.js';
import { type NodeName, PATRONI_TIMINGS, poll, WAL_SENDER_TIMEOUT_S } from '../support/patroni.js';
import { describeWithTools } from '../support/system-tools.js';
import type { EventReport, HaReport, PathReport, RejoinReport } from '../../scripts/ha-figures.mjs';

/** Set it to a file name to have each event's numbers written there as JSON. */
const REPORT_VARIABLE = 'PLANT_STORE_HA_REPORT';

/** Creates in flight at once on each path. */
const CLIENTS = 8;

/** How often a client sends a create answered 503 again before it goes on: createPlant's default. */
const CLIENT_RETRIES = 2;

/** The servers' statement timeout: the store's default, which they run with. */
const STATEMENT_TIMEOUT_MS = 5_000;

/**
 * Creates each path has acknowledged before a planned switchover, and again after it, at least (and 2 s
 * each way at least): the window its share of 503s is counted in, as large on a slow machine as on a
 * fast one.
 */
const PLANNED_STEADY_CREATES = 1500;

/**
 * The same for the other events, which count no share: enough to show each path serving before the
 * event, and serving again after it.
 */
const STEADY_CREATES = 200;

/** The most of a planned switchover's creates a path may answer with 503. */
const PLANNED_UNAVAILABLE_SHARE = 0.01;

/** How soon after a kill or a cut from etcd both paths must answer 200 again: the old leader's key lasts up to ttl. */
const UNPLANNED_SERVING_MS = (PATRONI_TIMINGS.ttl + 5) * 1000;

/**
 * How long the strict run keeps the standby cut off: past the point where the leader ends the standby's
 * stream and Patroni, not strict, would let it commit alone.
 */
const STRICT_CUT_MS = (WAL_SENDER_TIMEOUT_S + 5) * 1000;

/** How soon HAProxy's path must answer 200 again once HAProxy is started again. */
const HAPROXY_SERVING_MS = 15_000;

/** How often the sync key and the nodes' roles are read while a path is cut. */
const WATCH_MS = 200;

interface Plan {
  /** What happens: its name in the output, the report and the page's table. */
  readonly event: string;
  /** The leader and the synchronous standby it must have when the event begins, if it needs them. */
  readonly before?: { readonly leader: NodeName; readonly standby: NodeName };
  /** The leader once the event is over: the acknowledged plants must be there. */
  readonly leaderAfter: NodeName;
  /** A node that must hold them too once the event is over: a standby that has just rejoined. */
  readonly standbyAfter?: NodeName;
  /** Whether the host-list server runs with --workers 2 (then the HAProxy one runs as one process). */
  readonly hostListWorkers: boolean;
  /** Creates each path must have acknowledged before and after the event: {@link STEADY_CREATES} unless said. */
  readonly steadyCreates?: number;
  /**
   * Makes the event happen, and resolves once it is over and the cluster serves as it should again;
   * `loads` are the two paths' loads, host list first, read as they go.
   */
  readonly inject: (loads: readonly Load[]) => Promise<void>;
  /** Figures of the event's own, per path, from what the path's load sent once it has stopped. */
  readonly figures?: (sent: readonly Sent[]) => Partial<PathReport>;
}

/** The table the path `at` (0: the host list, 1: HAProxy) of the event `index` writes to. */
const eventTable = (index: number, at: number) => `ha_event_${index}_${at}`;

const isUnavailable = (each: Sent) => each.answer?.status === 503 && errorCode(each.answer.body) === 50301;
const isAcknowledged = (each: Sent) => each.answer?.status === 200;
const describeSent = (each: Sent) =>
  `${each.id}: ${each.answer ? `${each.answer.status} ${each.answer.body}` : each.error}`;

/** Whether 2 s have passed since `since` and each load has `creates` creates sent since then acknowledged. */
function steady(loads: readonly Load[], since: number, creates: number): boolean {
  const acknowledgedSince = (load: Load) =>
    load.sent.filter((each) => each.sentAt >= since && isAcknowledged(each)).length;
  return Date.now() - since >= 2_000 && loads.every((load) => acknowledgedSince(load) >= creates);
}

/**
 * The longest stretch from `since` without a 200 answer, and when it ended, from `since`: when the path
 * served again after an outage.
 */
function longestOutage(sent: readonly Sent[], since: number): { readonly ms: number; readonly endedAfterMs: number } {
  const answered = sent
    .filter((each) => isAcknowledged(each) && each.answeredAt >= since)
    .map((each) => each.answeredAt)
    .sort((a, b) => a - b);
  let previous = since;
  let longest = -1;
  let end = since;
  for (const at of answered) {
    if (at - previous > longest) [longest, end] = [at - previous, at];
    previous = at;
  }
  return { ms: longest, endedAfterMs: end - since };
}

/** A path's figures of its event's own, as the output's line ends with them. */
function eventFigures(report: PathReport): string {
  const figures = [
    report.acknowledgedByOldLeader !== undefined &&
      `${report.acknowledgedByOldLeader} acknowledged by the old leader after the cut`,
    report.acknowledgedWhileWaiting !== undefined &&
      `${report.acknowledgedWhileWaiting} acknowledged while the leader had to wait for the standby`,
    report.acknowledgedAlone !== undefined && `${report.acknowledgedAlone} acknowledged by the leader alone`,
    report.slowestAnswerMs !== undefined && `the slowest answer after the cut in ${report.slowestAnswerMs} ms`,
  ].filter((each) => each !== false);
  return figures.map((each) => `; ${each}`).join('');
}

describeWithTools(['patroni', 'etcd', 'haproxy', 'pg_rewind'], 'under Patroni with etcd and HAProxy', () => {
  let cluster: HaCluster | undefined;
  let versions = '';
  const started = Date.now();
  const reports: (PathReport | RejoinReport | EventReport)[] = [];
  const failed: string[] = [];

  beforeEach(({ onTestFailed, task }) => onTestFailed(() => void failed.push(task.name)));

  beforeAll(async () => {
    cluster = await startHaCluster();
    versions = cluster.versions();
    console.log(`[ha] ${versions}; Patroni ${JSON.stringify(PATRONI_TIMINGS)}, synchronous mode`);
  }, 240_000);

  afterAll(async () => {
    await cluster?.close();
    const file = process.env[REPORT_VARIABLE];
    if (!file) return;
    const report: HaReport = {
      command: 'npm run test:ha',
      finishedAt: new Date().toISOString(),
      durationMs: Date.now() - started,
      cpus: availableParallelism(),
      versions,
      timings: PATRONI_TIMINGS,
      walSenderTimeoutS: WAL_SENDER_TIMEOUT_S,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      failed,
      events: reports,
    };
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  }, 60_000);

  /** The plants of `acknowledged` that `node` does not hold as sent, in `table`. */
  const missingOn = (node: NodeName, table: string, acknowledged: readonly Sent[]) =>
    lostPlants(
      <Row extends object>(sql: string, values?: unknown[]) => cluster!.query<Row>(node, sql, values),
      `"public"."${table}"`,
      acknowledged,
    );

  /** Both servers under load through `plan`'s event; the numbers of each path, checked by the caller. */
  async function meet(plan: Plan, index: number): Promise<PathReport[]> {
    const ha = cluster!;
    if (plan.before) await ha.waitForSyncStandby(plan.before.leader, plan.before.standby, 90_000);
    const paths = [
      { path: 'host list' as const, url: ha.hostListUrl(), workers: plan.hostListWorkers ? 2 : 1 },
      { path: 'HAProxy' as const, url: ha.haproxyUrl(), workers: plan.hostListWorkers ? 1 : 2 },
    ].map((each, at) => ({ ...each, table: eventTable(index, at) }));
    const servers = await Promise.all(
      paths.map(({ url, table, workers }) =>
        startServers(['--database', url, '--database-table', table, ...(workers === 2 ? ['--workers', '2'] : [])], 1),
      ),
    );
    for (const [server] of servers) ha.adopt(server!.run.child);
    const loads = servers.map(([server]) =>
      startLoad({
        origins: [server!.origin],
        concurrency: CLIENTS,
        maxMs: 300_000,
        waitRetryAfter: true,
        resendUnavailable: CLIENT_RETRIES,
      }),
    );
    let began = 0;
    const creates = plan.steadyCreates ?? STEADY_CREATES;
    try {
      const loaded = Date.now();
      await waitFor(60_000, `2 s and ${creates} creates acknowledged on each path`, () =>
        steady(loads, loaded, creates),
      );
      began = Date.now();
      await plan.inject(loads);
      const over = Date.now();
      // What follows the event is part of its window too.
      await waitFor(60_000, `2 s and ${creates} creates acknowledged on each path once the event is over`, () =>
        steady(loads, over, creates),
      );
    } finally {
      await Promise.all(loads.map((load) => load.stop()));
    }
    if (plan.standbyAfter) await ha.waitForReplay(plan.leaderAfter, plan.standbyAfter, 30_000);
    return Promise.all(
      paths.map(async ({ path, table, workers }, at) => {
        const { sent } = loads[at]!;
        const acknowledged = sent.filter(isAcknowledged);
        const lost = await missingOn(plan.leaderAfter, table, acknowledged);
        const lostOnStandby = plan.standbyAfter ? await missingOn(plan.standbyAfter, table, acknowledged) : [];
        const others = sent.filter((each) => !isAcknowledged(each) && !isUnavailable(each));
        const outage = longestOutage(sent, began);
        const report: PathReport = {
          kind: 'path',
          event: plan.event,
          path,
          workers: workers as 1 | 2,
          sent: sent.length,
          acknowledged: acknowledged.length,
          lost: lost.length,
          unavailable: sent.filter(isUnavailable).length,
          other: others.length,
          longestWithout200Ms: outage.ms,
          servingAgainMs: outage.endedAfterMs,
          ...plan.figures?.(sent),
        };
        reports.push(report);
        console.log(
          `[ha] ${plan.event}, ${path} (${workers === 2 ? '--workers 2' : 'one process'}): ${report.sent} creates sent, ` +
            `${report.acknowledged} acknowledged, ${report.lost} lost, ${report.unavailable} answered 503 ` +
            `(${((100 * report.unavailable) / report.sent).toFixed(2)}%), ${report.other} other; ` +
            `at most ${report.longestWithout200Ms} ms without a 200, which ended ${report.servingAgainMs} ms after the event began${eventFigures(report)}`,
        );
        expect(others.slice(0, 5).map(describeSent), `${path}: answers other than 200 and 503`).toEqual([]);
        expect(lost.slice(0, 5), `${path}: acknowledged plants missing on ${plan.leaderAfter}`).toEqual([]);
        if (plan.standbyAfter) {
          expect(lostOnStandby.slice(0, 5), `${path}: acknowledged plants missing on ${plan.standbyAfter}`).toEqual([]);
        }
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
      kind: 'rejoin',
      event: `${name} rejoins`,
      rewound: log.includes('running pg_rewind from'),
      syncStandbyAfterMs,
      since: 'start',
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

  /** A planned switchover with patronictl, or the leader killed, until `to` leads. */
  const failover = (kind: 'switchover' | 'kill', from: NodeName, to: NodeName, hostListWorkers: boolean): Plan => ({
    event:
      kind === 'switchover'
        ? `switchover ${from} to ${to}`
        : `${from} killed (Patroni and postmaster), ${to} takes over`,
    before: { leader: from, standby: to },
    leaderAfter: to,
    hostListWorkers,
    ...(kind === 'switchover' && { steadyCreates: PLANNED_STEADY_CREATES }),
    inject: async () => {
      const ha = cluster!;
      if (kind === 'switchover') await ha.switchover(from, to);
      else await ha.kill(from);
      await ha.waitForLeader(to, (PATRONI_TIMINGS.ttl + 30) * 1000);
    },
  });

  const planned = async (plan: Plan, index: number) => {
    for (const report of await meet(plan, index)) {
      expect(report.unavailable, `${report.path}: 503s of ${report.sent}`).toBeLessThanOrEqual(
        report.sent * PLANNED_UNAVAILABLE_SHARE,
      );
    }
  };
  const unplanned = async (plan: Plan, index: number) => {
    for (const report of await meet(plan, index)) {
      expect(report.servingAgainMs, `${report.path}: ms to a 200 after the event began`).toBeLessThanOrEqual(
        UNPLANNED_SERVING_MS,
      );
    }
  };

  /** Each node's Patroni role by its REST API, read every {@link WATCH_MS} until `done`; what it saw. */
  async function watchLeaders(ms: number, what: string, done: (leaders: readonly NodeName[]) => boolean) {
    const seen: { at: number; leaders: NodeName[] }[] = [];
    await poll(
      ms,
      what,
      async () => {
        const at = Date.now();
        const leaders = await cluster!.leaders();
        seen.push({ at, leaders });
        if (done(leaders)) return true;
        await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
        return undefined;
      },
      () => `seen: ${JSON.stringify(seen.slice(-20))}`,
    );
    return seen;
  }

  it('switchover node-a to node-b: nothing acknowledged lost, at most 1% answered 503, on both paths', async () => {
    await planned(failover('switchover', 'node-a', 'node-b', false), 1);
  }, 180_000);

  it(`node-b killed, node-a takes over, the worker counts swapped: nothing acknowledged lost, only 200 or 503, 200 again within ttl + 5 s (${UNPLANNED_SERVING_MS} ms)`, async () => {
    await unplanned(failover('kill', 'node-b', 'node-a', true), 2);
  }, 240_000);

  it('node-b rejoins: rewound if it must be, then the synchronous standby', async () => {
    await rejoin('node-b', 'node-a');
  }, 180_000);

  it('node-a killed, node-b takes over, the worker counts swapped back: the same', async () => {
    await unplanned(failover('kill', 'node-a', 'node-b', false), 3);
  }, 240_000);

  it('node-a rejoins: rewound if it must be, then the synchronous standby', async () => {
    await rejoin('node-a', 'node-b');
  }, 180_000);

  it('switchover back, node-b to node-a, after both rejoined, the worker counts swapped: nothing acknowledged lost, at most 1% answered 503', async () => {
    await planned(failover('switchover', 'node-b', 'node-a', true), 4);
  }, 180_000);

  it('each node’s Patroni reaches etcd through its own proxy alone, the one the next tests cut', async () => {
    const ha = cluster!;
    const pids = ha.pids();
    // Etcd's client port: only the proxies (this process) and etcd's own gateway hold connections to it.
    expect(ha.etcdClients().filter((pid) => pid !== process.pid && pid !== pids.etcd)).toEqual([]);
    for (const [name, other] of [
      ['node-a', 'node-b'],
      ['node-b', 'node-a'],
    ] as const) {
      const through = ha.etcdClients(name);
      expect(through, `${name}'s Patroni on its proxy to etcd`).toContain(pids[name]);
      expect(through, `${other}'s Patroni on ${name}'s proxy to etcd`).not.toContain(pids[other]);
    }
  });

  it(`node-a, the leader, cut from etcd while the servers still reach it: it demotes itself before node-b takes over, nothing it acknowledged after the cut is missing on node-b, 200 again within ttl + 5 s`, async () => {
    const ha = cluster!;
    let cutAt = 0;
    let demotedAt = 0;
    let ledAt = 0;
    const plan: Plan = {
      event: 'node-a, the leader, cut from etcd; node-b takes over',
      before: { leader: 'node-a', standby: 'node-b' },
      leaderAfter: 'node-b',
      hostListWorkers: false,
      inject: async () => {
        cutAt = Date.now();
        ha.cutFromEtcd('node-a', true);
        const seen = await watchLeaders(
          (PATRONI_TIMINGS.ttl + 30) * 1000,
          'node-b the only primary after node-a was cut from etcd',
          (leaders) => leaders.join() === 'node-b',
        );
        demotedAt = seen.find(({ leaders }) => !leaders.includes('node-a'))!.at;
        ledAt = seen.at(-1)!.at;
        // Never two leaders: Patroni demotes a leader that cannot renew its key before the key expires.
        expect(seen.filter(({ leaders }) => leaders.length > 1)).toEqual([]);
      },
      // Sent after the cut and answered before node-a stopped leading: node-a acknowledged them alone.
      figures: (sent) => ({
        acknowledgedByOldLeader: sent.filter(
          (each) => isAcknowledged(each) && each.sentAt >= cutAt && each.answeredAt <= demotedAt,
        ).length,
      }),
    };
    const paths = await meet(plan, 5);
    const report: EventReport = {
      kind: 'event',
      event: plan.event,
      demotedAfterMs: demotedAt - cutAt,
      newLeaderAfterMs: ledAt - cutAt,
    };
    reports.push(report);
    console.log(
      `[ha] ${plan.event}: node-a no longer primary ${report.demotedAfterMs} ms after the cut, node-b primary after ${report.newLeaderAfterMs} ms`,
    );
    for (const each of paths) {
      expect(each.acknowledgedByOldLeader, `${each.path}: creates node-a acknowledged after the cut`).toBeGreaterThan(
        0,
      );
      expect(each.servingAgainMs, `${each.path}: ms to a 200 after the cut`).toBeLessThanOrEqual(UNPLANNED_SERVING_MS);
    }
  }, 240_000);

  it('the cut heals: node-a rejoins as node-b’s synchronous standby (rewound if it must be), and holds every acknowledged plant', async () => {
    const ha = cluster!;
    let rejoin: RejoinReport | undefined;
    await meet(
      {
        event: 'node-a’s path to etcd healed; node-a rejoins',
        leaderAfter: 'node-b',
        standbyAfter: 'node-a',
        hostListWorkers: true,
        inject: async () => {
          const from = ha.log('node-a').length;
          const healed = Date.now();
          ha.cutFromEtcd('node-a', false);
          await ha.waitForSyncStandby('node-b', 'node-a', 120_000);
          const log = ha.log('node-a').slice(from);
          rejoin = {
            kind: 'rejoin',
            event: 'node-a rejoins once its path to etcd heals',
            rewound: log.includes('running pg_rewind from'),
            syncStandbyAfterMs: Date.now() - healed,
            since: 'heal',
          };
          expect(log).not.toContain('replica has been created using basebackup');
          if (rejoin.rewound) expect(log).toContain('pg_rewind exit code=0');
        },
      },
      6,
    );
    reports.push(rejoin!);
    console.log(
      `[ha] ${rejoin!.event}: ${rejoin!.rewound ? 'rewound by pg_rewind' : 'no rewind needed'}, ` +
        `the synchronous standby ${rejoin!.syncStandbyAfterMs} ms after the heal`,
    );
  }, 240_000);

  it('HAProxy stopped and started again under load: the host list does not notice, HAProxy’s path answers 503 then 200 again, nothing lost', async () => {
    const ha = cluster!;
    const [hostList, haproxy] = await meet(
      {
        event: 'HAProxy stopped and started again',
        before: { leader: 'node-b', standby: 'node-a' },
        leaderAfter: 'node-b',
        hostListWorkers: false,
        inject: async () => {
          await ha.stopHaproxy();
          ha.startHaproxy();
          await ha.waitForSyncStandby('node-b', 'node-a', 30_000);
        },
      },
      7,
    );
    expect(hostList!.unavailable, 'host list: 503s').toBe(0);
    expect(haproxy!.servingAgainMs, 'HAProxy: ms to a 200 after the stop').toBeLessThanOrEqual(HAPROXY_SERVING_MS);
  }, 240_000);

  /**
   * node-b's synchronous standby node-a cut off, under load: the proxy in front of node-b's PostgreSQL,
   * which node-a streams from, blackholed, then healed. Commits wait for node-a until Patroni drops it
   * from the synchronous standbys (once node-b has ended its stream, after wal_sender_timeout), then, not
   * strict, node-b commits alone; strict, they wait until the heal.
   */
  async function standbyCut(strict: boolean, index: number, hostListWorkers: boolean): Promise<PathReport[]> {
    const ha = cluster!;
    /** Each read of the sync key: when it began, and whether the key named node-a. */
    const reads: { at: number; named: boolean }[] = [];
    let cutAt = 0;
    let healedAt = 0;
    let syncAgainAt = 0;
    /** The acknowledged creates node-a did not hold at the end of the cut, per path (host list first). */
    const notOnStandby: bigint[][] = [];
    // Patroni removes node-a from the key before node-b stops waiting for it, so node-b's commits wait
    // for node-a at least until the last read that still found it named (and, strict, until the heal).
    const lastNamed = () => reads.filter((each) => each.named).at(-1)?.at ?? cutAt;
    const waitedUntil = () => (strict ? healedAt : lastNamed());
    const dropped = () => reads.find((each) => !each.named)?.at;
    const event = `node-b cut from its synchronous standby node-a${strict ? ', synchronous_mode_strict' : ''}`;
    const readKey = async () => {
      const at = Date.now();
      const standbys = await ha.synchronousStandbys();
      if (standbys !== undefined) reads.push({ at, named: standbys.includes('node-a') });
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    };
    let cancelled = 0;
    const plan: Plan = {
      event,
      before: { leader: 'node-b', standby: 'node-a' },
      leaderAfter: 'node-b',
      standbyAfter: 'node-a',
      hostListWorkers,
      inject: async (loads) => {
        cutAt = Date.now();
        ha.cutReplicationFrom('node-b', true);
        let watching = true;
        const watcher = (async () => {
          while (watching) await readKey();
        })();
        try {
          // As an operator does when commits hang: the ones waiting for node-a cancelled, a second into
          // the cut. PostgreSQL then commits each on node-b alone and says so in a WARNING, which the
          // store must not take for an acknowledgment.
          await waitFor(5_000, 'commits on node-b waiting for node-a, a second into the cut', async () => {
            if (Date.now() - cutAt < 1_000) return false;
            const [row] = await ha.query<{ cancelled: number }>(
              'node-b',
              "SELECT count(*) FILTER (WHERE pg_cancel_backend(pid))::int AS cancelled FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
            );
            cancelled = row?.cancelled ?? 0;
            return cancelled > 0;
          });
          if (strict) {
            await waitFor(
              STRICT_CUT_MS + 10_000,
              `${STRICT_CUT_MS} ms of the cut`,
              () => Date.now() - cutAt >= STRICT_CUT_MS,
            );
          } else {
            await waitFor(
              (WAL_SENDER_TIMEOUT_S + 10) * 1000,
              'Patroni dropping node-a from the synchronous standbys once node-b has ended its stream',
              () => dropped() !== undefined,
            );
            await waitFor(5_000, 'node-b acknowledging creates alone, on each path', () =>
              loads.every((load) => load.sent.some((each) => isAcknowledged(each) && each.sentAt >= dropped()!)),
            );
          }
          // What node-a holds, cut off: its own WAL replayed, every create acknowledged so far must be there
          // but those node-b acknowledged alone once Patroni had dropped node-a.
          await waitFor(5_000, 'node-a replaying all the WAL it received', async () => {
            const [row] = await ha.query<{ done: boolean }>(
              'node-a',
              'SELECT pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn() AS done',
            );
            return row?.done === true;
          });
          const until = strict ? Date.now() : lastNamed();
          for (const [at, load] of loads.entries()) {
            const acknowledged = load.sent.filter((each) => isAcknowledged(each) && each.answeredAt <= until);
            notOnStandby[at] = await missingOn('node-a', eventTable(index, at), acknowledged);
          }
        } finally {
          ha.cutReplicationFrom('node-b', false);
          healedAt = Date.now();
          watching = false;
          await watcher;
        }
        // node-b ended node-a's stream during the cut (wal_sender_timeout), and the heal resets node-a's end
        // of it, as a network does: node-a connects again (wal_retrieve_retry_interval, 5 s, at most),
        // long before wal_receiver_timeout (60 s) could have had it connect again into the cut.
        await ha.waitForSyncStandby('node-b', 'node-a', 60_000);
        syncAgainAt = Date.now();
      },
      figures: (sent) => {
        const afterCut = sent.filter((each) => each.sentAt >= cutAt);
        return {
          acknowledgedWhileWaiting: afterCut.filter((each) => isAcknowledged(each) && each.answeredAt <= waitedUntil())
            .length,
          slowestAnswerMs: Math.max(...afterCut.map((each) => each.answeredAt - each.sentAt)),
          ...(!strict && {
            acknowledgedAlone: sent.filter(
              (each) => isAcknowledged(each) && each.answeredAt > lastNamed() && each.answeredAt <= healedAt,
            ).length,
          }),
        };
      },
    };
    const paths = await meet(plan, index);
    const droppedAt = dropped();
    const report: EventReport = {
      kind: 'event',
      event,
      cutMs: healedAt - cutAt,
      cancelledCommits: cancelled,
      ...(droppedAt !== undefined && { standbyDroppedAfterMs: droppedAt - cutAt }),
      syncAgainAfterHealMs: syncAgainAt - healedAt,
    };
    reports.push(report);
    console.log(
      `[ha] ${event}: cut for ${report.cutMs} ms; ${cancelled} commits waiting for node-a cancelled; ` +
        (droppedAt === undefined
          ? 'node-a named synchronous throughout'
          : `node-a no longer named synchronous ${report.standbyDroppedAfterMs} ms after the cut`) +
        `; the synchronous standby again ${report.syncAgainAfterHealMs} ms after the heal`,
    );
    for (const [at, each] of paths.entries()) {
      expect(
        notOnStandby[at]?.slice(0, 5),
        `${each.path}: acknowledged, but not on node-a while it could be promoted`,
      ).toEqual([]);
      expect(
        each.acknowledgedWhileWaiting,
        `${each.path}: creates sent after the cut answered 200 while node-b had to wait for node-a`,
      ).toBe(0);
      expect(each.unavailable, `${each.path}: 503s while commits waited`).toBeGreaterThan(0);
      // The store gives up on a commit that waits within the statement timeout, give or take a loaded
      // machine's moment: well before node-b would stop waiting (wal_sender_timeout).
      expect(each.slowestAnswerMs, `${each.path}: slowest answer to a create sent after the cut`).toBeLessThan(
        STATEMENT_TIMEOUT_MS + 1_500,
      );
    }
    return paths;
  }

  it(`node-b cut from its synchronous standby: commits wait, 503 within the statement timeout, nothing acknowledged that node-a does not hold until Patroni drops it after wal_sender_timeout (${WAL_SENDER_TIMEOUT_S} s); then node-b acknowledges alone, and after the heal nothing is lost`, async () => {
    const paths = await standbyCut(false, 8, true);
    for (const each of paths) {
      expect(each.acknowledgedAlone, `${each.path}: creates node-b acknowledged alone`).toBeGreaterThan(0);
    }
  }, 300_000);

  it('synchronous_mode_strict, set with patronictl edit-config: with node-a cut off, every create answers 503 for the whole cut; healed, 200 again and nothing lost', async () => {
    const ha = cluster!;
    await ha.setSynchronousModeStrict('node-b', true);
    try {
      await standbyCut(true, 9, false);
    } finally {
      await ha.setSynchronousModeStrict('node-b', false);
    }
  }, 300_000);
});
