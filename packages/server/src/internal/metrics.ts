import type { ErrorCode, InsertOutcome, PlantStore } from '@plant-store/core';
import { Counter, collectDefaultMetrics, Gauge, type Metric, type MetricValueWithName, Registry } from 'prom-client';

/** The server's Prometheus metrics, in a registry of their own (an app's own metrics stay apart). */
export interface Metrics {
  readonly registry: Registry;
  /**
   * One answered request: its status (`undefined`: the client left first), the Error code of its
   * answer (`undefined` for a success) and its duration.
   */
  observeRequest(status: number | undefined, errorCode: ErrorCode | undefined, seconds: number): void;
  /** One insert the store was asked for: its outcome and duration (the app's `onInsert`). */
  observeInsert(outcome: InsertOutcome, seconds: number): void;
  /** A read of the token file: whether a reload took (`undefined`: the read at start), and how many entries are accepted now. */
  observeTokenReload(ok: boolean | undefined, entries: number): void;
}

/** What the file and PostgreSQL stores report of their batches (group commit), read when scraped. */
interface BatchStats {
  readonly statements?: number;
  readonly rows?: number;
  readonly writes?: number;
  readonly records?: number;
}
interface PoolStats {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}

/** The buckets of both histograms, in seconds. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Creates the metrics of one server process. Request counts by status and error code, request and
 * store latency, the store's batches and rows (group commit: rows / batches is the mean batch size),
 * the database pool's connections, process metrics and build info. With node:cluster every worker
 * has its own, and the primary sums them (`aggregator` says how where summing is wrong).
 */
export function createMetrics(store: PlantStore, build: { version: string }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Counted per request into plain numbers and handed to prom-client's Counter when scraped, through
  // its `collect`: `inc` with a label object on every request cost a busy server about 3% of its
  // requests per second (bench/README.md, "Logs and metrics").
  const counts = new Map<number | undefined, Map<ErrorCode | undefined, number>>();
  new Counter({
    name: 'plant_store_http_requests_total',
    help: 'Requests answered, by HTTP status and Error code ("" for a success; status "aborted" when the client left first).',
    labelNames: ['status', 'code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [status, byCode] of counts) {
        for (const [code, count] of byCode) {
          this.inc({ status: statusLabel(status), code: code === undefined ? '' : String(code) }, count);
        }
      }
    },
  });
  const duration = new OneLabelHistogram<number | undefined>(
    'plant_store_http_request_duration_seconds',
    'Time from the request to its answer, by HTTP status.',
    'status',
    registry,
    statusLabel,
  );
  const insert = new OneLabelHistogram<InsertOutcome>(
    'plant_store_store_insert_duration_seconds',
    "Time the store took to insert a plant (durably: a file store's fsync, a database's commit), by outcome.",
    'outcome',
    registry,
    (outcome) => outcome,
  );
  const batchStats = (): BatchStats | undefined =>
    (store as { stats?: () => BatchStats }).stats?.call(store) as BatchStats | undefined;
  new Counter({
    name: 'plant_store_store_batches_total',
    help: 'Writes the store made (one per group commit: a multi-row statement or a write + fsync).',
    registers: [registry],
    collect() {
      const stats = batchStats();
      this.reset();
      this.inc(stats?.statements ?? stats?.writes ?? 0);
    },
  });
  new Counter({
    name: 'plant_store_store_rows_total',
    help: 'Plants those writes carried; divided by plant_store_store_batches_total, the mean batch size.',
    registers: [registry],
    collect() {
      const stats = batchStats();
      this.reset();
      this.inc(stats?.rows ?? stats?.records ?? 0);
    },
  });
  const poolStats = (store as { poolStats?: () => PoolStats }).poolStats;
  if (poolStats !== undefined) {
    new Gauge({
      name: 'plant_store_db_pool_connections',
      help: "The database pool's connections: in use, idle, requests waiting for one, and the pool's bound.",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const pool = poolStats.call(store);
        this.set({ state: 'in_use' }, pool.inUse);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
        this.set({ state: 'max' }, pool.max);
      },
    });
  }
  new Gauge({
    name: 'plant_store_build_info',
    help: 'The server build: its version and the Node.js version; always 1.',
    labelNames: ['version', 'node'],
    registers: [registry],
    // The same in every worker: summing would count the workers.
    aggregator: 'max',
  }).set({ version: build.version, node: process.version }, 1);

  const reloads = new Counter({
    name: 'plant_store_token_reloads_total',
    help: 'Reloads of the token file (SIGHUP), by outcome: "ok", or "failed" (the previous tokens stayed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const tokenEntries = new Gauge({
    name: 'plant_store_token_entries',
    help: 'Entries of the token file accepted now.',
    registers: [registry],
    // The same file in every worker: summing would count the workers.
    aggregator: 'max',
  });
  return {
    registry,
    observeTokenReload(ok, entries) {
      if (ok !== undefined) reloads.inc({ outcome: ok ? 'ok' : 'failed' });
      tokenEntries.set(entries);
    },
    observeRequest(status, errorCode, seconds) {
      let byCode = counts.get(status);
      if (byCode === undefined) {
        byCode = new Map();
        counts.set(status, byCode);
      }
      byCode.set(errorCode, (byCode.get(errorCode) ?? 0) + 1);
      duration.observe(status, seconds);
    },
    observeInsert(outcome, seconds) {
      insert.observe(outcome, seconds);
    },
  };
}

/** The `status` label: the HTTP status, or `aborted` when the client left before the answer. */
function statusLabel(status: number | undefined): string {
  return status === undefined ? 'aborted' : String(status);
}

interface Series {
  readonly label: string;
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram by one label, with the series prom-client's Histogram gives (`_bucket` by
 * `le`, cumulative, with `+Inf`; `_sum`; `_count`), summed across workers as prom-client sums its
 * histograms. An observation is an array increment: prom-client's `observe` builds and hashes a
 * label object and writes its bucket under a number-valued key on every call, which costs a busy
 * server a large share of its requests per second (bench/README.md, "Logs and metrics").
 * prom-client types no metric of one's own, hence the cast where it is registered.
 */
class OneLabelHistogram<K> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #labelName: string;
  readonly #labelOf: (key: K) => string;
  readonly #series = new Map<K, Series>();
  // The series of the observation before, kept at hand: most are of the same key again.
  #last: Series | undefined;
  #lastKey: K | undefined;

  /** `labelOf` gives the label's value for a key: a series is found by its key, its text made once. */
  constructor(name: string, help: string, labelName: string, registry: Registry, labelOf: (key: K) => string) {
    this.name = name;
    this.help = help;
    this.#labelName = labelName;
    this.#labelOf = labelOf;
    registry.registerMetric(this as unknown as Metric);
  }

  observe(key: K, value: number): void {
    let series = this.#last;
    if (key !== this.#lastKey || series === undefined) {
      series = this.#series.get(key);
      if (series === undefined) {
        series = { label: this.#labelOf(key), buckets: new Float64Array(SECONDS.length), sum: 0, count: 0 };
        this.#series.set(key, series);
      }
      this.#last = series;
      this.#lastKey = key;
    }
    // Prometheus buckets are upper bounds, inclusive; past the last one only `+Inf` (the count) holds it.
    let bucket = 0;
    while (bucket < SECONDS.length && value > SECONDS[bucket]!) bucket++;
    if (bucket < SECONDS.length) series.buckets[bucket]!++;
    series.sum += value;
    series.count++;
  }

  get(): Promise<{
    name: string;
    help: string;
    type: string;
    values: MetricValueWithName<string>[];
    aggregator: string;
  }> {
    const values: MetricValueWithName<string>[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { label, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      SECONDS.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { [this.#labelName]: label, le }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { [this.#labelName]: label, le: '+Inf' }, value: count, metricName: bucketName });
      values.push({ labels: { [this.#labelName]: label }, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.#labelName]: label }, value: count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    this.#series.clear();
    this.#last = undefined;
    this.#lastKey = undefined;
  }
}
