import type { InsertOutcome, PlantStore } from '@plant-store/core';
import { Counter, collectDefaultMetrics, Gauge, type MetricValueWithName, Registry } from 'prom-client';

/** The server's Prometheus metrics, in a registry of their own (an app's own metrics stay apart). */
export interface Metrics {
  readonly registry: Registry;
  /**
   * One answered request: its status (`undefined`: the client left first), the Error code of its
   * body ({@link errorCodeOf}: `''` for a success) and its duration.
   */
  observeRequest(status: number | undefined, code: string, seconds: number): void;
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
  // Counted here per request, by status and then Error code, and added to prom-client's counter when
  // it is read (a scrape): no label object or key is built per request.
  const answered = new Map<number | undefined, Map<string, { readonly status: string; count: number }>>();
  let last: { status: number | undefined; code: string; entry: { count: number } } = {
    status: Number.NaN,
    code: '',
    entry: { count: 0 },
  };
  new Counter({
    name: 'plant_store_http_requests_total',
    help: 'Requests answered, by HTTP status and Error code ("" for a success; status "aborted" when the client left first).',
    labelNames: ['status', 'code'],
    registers: [registry],
    collect() {
      for (const byCode of answered.values()) {
        for (const [code, entry] of byCode) {
          if (entry.count === 0) continue;
          this.inc({ status: entry.status, code }, entry.count);
          entry.count = 0;
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
    observeRequest(status, code, seconds) {
      // Most answers are the one before's again (a run of creates): that entry is kept at hand.
      if (status !== last.status || code !== last.code) {
        let byCode = answered.get(status);
        if (byCode === undefined) {
          byCode = new Map();
          answered.set(status, byCode);
        }
        let entry = byCode.get(code);
        if (entry === undefined) {
          entry = { status: statusLabel(status), count: 0 };
          byCode.set(code, entry);
        }
        last = { status, code, entry };
      }
      last.entry.count++;
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
 * A Prometheus histogram by one label, in the series prom-client's Histogram gives (`_bucket` by
 * `le`, cumulative, with `+Inf`; `_sum`; `_count`), summed across workers as prom-client sums
 * histograms. An observation is an array increment: prom-client's `observe` builds and hashes a
 * label object and writes its bucket under a float-valued key on every call, which with a request
 * and an insert histogram took a tenth of the instructions of a whole request.
 */
class OneLabelHistogram<K> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<K, Series>();
  private last: Series | undefined;
  private lastKey: K | undefined;

  /** `labelOf` gives the label's value for a key: a series is found by its key, its text made once. */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    registry: Registry,
    private readonly labelOf: (key: K) => string,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  observe(key: K, value: number): void {
    // The series of the observation before is kept at hand: most are of the same key again.
    let series = this.last;
    if (key !== this.lastKey || series === undefined) {
      series = this.series.get(key);
      if (series === undefined) {
        series = { label: this.labelOf(key), buckets: new Float64Array(SECONDS.length), sum: 0, count: 0 };
        this.series.set(key, series);
      }
      this.last = series;
      this.lastKey = key;
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
    for (const { label, ...series } of this.series.values()) {
      let cumulative = 0;
      SECONDS.forEach((le, i) => {
        cumulative += series.buckets[i]!;
        values.push({ labels: { [this.labelName]: label, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({
        labels: { [this.labelName]: label, le: '+Inf' },
        value: series.count,
        metricName: `${this.name}_bucket`,
      });
      values.push({ labels: { [this.labelName]: label }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.labelName]: label }, value: series.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    this.series.clear();
    this.last = undefined;
  }
}

/**
 * The `error` of an Error body, read without parsing it: the core writes every Error body as
 * `{"error":<5 digits>,…` (JSON.stringify of { error, message }), and a success has no `error`.
 */
export function errorCodeOf(body: string | undefined): string {
  return body?.startsWith('{"error":') ? body.slice(9, 14) : '';
}
