// Types of ha-figures.mjs: the report the high-availability suite writes, and the page's part made of it.

/** The two ways the suite's servers reach the leader. */
export type PathName = 'host list' | 'HAProxy';

/** What one path saw of one event. */
export interface PathReport {
  readonly kind: 'path';
  readonly event: string;
  readonly path: PathName;
  readonly workers: 1 | 2;
  readonly sent: number;
  readonly acknowledged: number;
  /** Acknowledged creates whose plant is not on the leader (nor on a standby that has just rejoined) as sent. */
  readonly lost: number;
  /** Answered 503 with the store-unavailable code. */
  readonly unavailable: number;
  /** Any other answer, or none. */
  readonly other: number;
  /** The path's longest stretch without a 200 answer since the event's start. */
  readonly longestWithout200Ms: number;
  /** From the event's start to the 200 that ended that stretch: when the path served again after an outage. */
  readonly servingAgainMs: number;
  /** The leader cut from etcd: creates sent after the cut that it acknowledged before it stopped leading. */
  readonly acknowledgedByOldLeader?: number;
  /**
   * The standby cut off: creates sent after the cut and answered 200 while the leader had to wait for
   * the standby (Patroni still named it synchronous; strict, until the heal).
   */
  readonly acknowledgedWhileWaiting?: number;
  /** The standby cut off, not strict: creates the leader acknowledged alone, once Patroni had dropped the standby. */
  readonly acknowledgedAlone?: number;
  /** The standby cut off: the slowest answer to a create sent after the cut. */
  readonly slowestAnswerMs?: number;
}

/** A node that rejoined as the synchronous standby. */
export interface RejoinReport {
  readonly kind: 'rejoin';
  readonly event: string;
  /** Whether Patroni ran pg_rewind (it does when the old leader's WAL went past the new timeline's start). */
  readonly rewound: boolean;
  /** From `since` to streaming as the synchronous standby. */
  readonly syncStandbyAfterMs: number;
  /** What it rejoined after: its Patroni started again, or its path to etcd healed. */
  readonly since: 'start' | 'heal';
}

/** The cluster's side of a network fault. */
export interface EventReport {
  readonly kind: 'event';
  readonly event: string;
  /** The leader cut from etcd: from the cut until its Patroni no longer called it primary. */
  readonly demotedAfterMs?: number;
  /** The leader cut from etcd: from the cut until the other node was the primary. */
  readonly newLeaderAfterMs?: number;
  /** The standby cut off: how long the cut lasted. */
  readonly cutMs?: number;
  /** The standby cut off: the commits waiting for it that an operator's pg_cancel_backend ended, a second into the cut. */
  readonly cancelledCommits?: number;
  /** The standby cut off: from the cut until Patroni's sync key in etcd no longer named it. */
  readonly standbyDroppedAfterMs?: number;
  /** The standby cut off: from the heal until it was the synchronous standby again. */
  readonly syncAgainAfterHealMs?: number;
}

/** What `PLANT_STORE_HA_REPORT=<file> npm run test:ha` writes. */
export interface HaReport {
  readonly command: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly cpus: number;
  /** Patroni's, etcd's, HAProxy's and PostgreSQL's versions, as they print them. */
  readonly versions: string;
  readonly timings: { readonly ttl: number; readonly loop_wait: number; readonly retry_timeout: number };
  readonly walSenderTimeoutS: number;
  readonly statementTimeoutMs: number;
  /** The tests of the run that failed, by name. */
  readonly failed: readonly string[];
  readonly events: readonly (PathReport | RejoinReport | EventReport)[];
}

/** The suite's last report, committed beside it, whose figures the page shows. */
export const HA_REPORT: string;
/** The page that shows them. */
export const HA_FIGURES_PAGE: string;
/** The command that writes them into the page. */
export const HA_FIGURES_COMMAND: string;
export const HA_FIGURES_START: string;
export const HA_FIGURES_END: string;

/** The report at {@link HA_REPORT}. */
export function readHaReport(): HaReport;

/** The page's part made of `report`: where it comes from, a row per event and path, and each event's own figures. */
export function haFigures(report: HaReport): string;
