import type { PlantStore } from '@plant-store/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The server's Prometheus metrics, in a registry of their own (an app's own metrics stay apart). */
export interface Metrics {
  readonly registry: Registry;
  /** One answered request: its status (`undefined`: the client left first), body and duration. */
  observeRequest(status: number | undefined, body: string | undefined, seconds: number): void;
  /** `store` with its inserts timed into the store latency histogram. */
  timed(store: PlantStore): PlantStore;
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
  const requests = new Counter({
    name: 'plant_store_http_requests_total',
    help: 'Requests answered, by HTTP status and Error code ("" for a success; status "aborted" when the client left first).',
    labelNames: ['status', 'code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'plant_store_http_request_duration_seconds',
    help: 'Time from the request to its answer, by HTTP status.',
    labelNames: ['status'],
    buckets: SECONDS,
    registers: [registry],
  });
  const insert = new Histogram({
    name: 'plant_store_store_insert_duration_seconds',
    help: "Time the store took to insert a plant (durably: a file store's fsync, a database's commit), by outcome.",
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [registry],
  });
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
    observeRequest(status, body, seconds) {
      const label = status === undefined ? 'aborted' : String(status);
      requests.inc({ status: label, code: errorCodeOf(body) });
      duration.observe({ status: label }, seconds);
    },
    timed(inner) {
      return {
        async insert(plant) {
          const started = performance.now();
          let outcome = 'error';
          try {
            const result = await inner.insert(plant);
            outcome = result.created ? 'created' : 'existing';
            return result;
          } finally {
            insert.observe({ outcome }, (performance.now() - started) / 1000);
          }
        },
        checkHealth: () => inner.checkHealth(),
      };
    },
  };
}

/**
 * The `error` of an Error body, read without parsing it: the core writes every Error body as
 * `{"error":<5 digits>,…` (JSON.stringify of { error, message }), and a success has no `error`.
 */
export function errorCodeOf(body: string | undefined): string {
  return body?.startsWith('{"error":') ? body.slice(9, 14) : '';
}
