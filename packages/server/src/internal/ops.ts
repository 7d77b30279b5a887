import { createServer, type Server } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import { describeError, type Logger } from './logger.js';

/** Where a server process stands, as `/readyz` reports it. */
export type ReadyState = 'starting' | 'ready' | 'unavailable' | 'draining';

/** How often the store's health check runs, so `/readyz` follows the database within about 1 s. */
const CHECK_EVERY_MS = 500;
/** A health check that does not answer in this time counts as failed. */
const CHECK_TIMEOUT_MS = 1_000;

/**
 * Follows whether this process can serve: `starting` until it listens, then `ready` or `unavailable`
 * as the store's health check passes or fails (checked every 500 ms), and `draining` once it closes.
 * Each change of the store's health is logged once, not every check.
 */
export class Readiness {
  #state: ReadyState = 'starting';
  #reason = 'starting';
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  readonly #store: PlantStore;
  readonly #logger: Logger | undefined;

  constructor(store: PlantStore, logger: Logger | undefined) {
    this.#store = store;
    this.#logger = logger;
  }

  get state(): ReadyState {
    return this.#state;
  }

  get reason(): string {
    return this.#reason;
  }

  /** Starts following the store (the server listens now). Resolves after the first check. */
  async start(): Promise<void> {
    await this.#check();
    this.#timer = setInterval(() => void this.#check(), CHECK_EVERY_MS);
    this.#timer.unref();
  }

  /** The process is draining: `/readyz` answers 503 from now on, so a load balancer stops sending. */
  drain(): void {
    clearInterval(this.#timer);
    this.#state = 'draining';
    this.#reason = 'shutting down';
  }

  async #check(): Promise<void> {
    if (this.#checking || this.#state === 'draining') return;
    this.#checking = true;
    let failure: unknown;
    try {
      await withTimeout(this.#store.checkHealth(), CHECK_TIMEOUT_MS);
    } catch (error) {
      failure = error;
    } finally {
      this.#checking = false;
    }
    if ((this.#state as ReadyState) === 'draining') return;
    if (failure === undefined) {
      if (this.#state === 'unavailable') this.#logger?.info('store available again', { event: 'store-available' });
      this.#state = 'ready';
      this.#reason = 'ready';
    } else {
      const reason = describeError(failure);
      if (this.#state !== 'unavailable')
        this.#logger?.error('store unavailable', { event: 'store-unavailable', error: reason });
      this.#state = 'unavailable';
      this.#reason = reason;
    }
  }
}

function withTimeout(check: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the health check did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}

/** What the operations listener answers from. */
export interface OpsSource {
  /** Whether the service is ready, and why not. */
  readiness(): Promise<{ readonly ready: boolean; readonly state: string; readonly reason: string }>;
  /** The Prometheus text exposition, and its content type. */
  metrics(): Promise<{ readonly contentType: string; readonly body: string }>;
}

/**
 * The operations listener, on a port of its own so the API stays exactly the spec's: `GET /livez`
 * (200 while the process runs), `GET /readyz` (200 when ready, else 503 with the reason) and `GET
 * /metrics` (Prometheus). No authentication: bind it where only the orchestrator and Prometheus reach.
 */
export function createOpsServer(source: OpsSource): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string) => {
      res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET only\n');
    if (path === '/livez') return send(200, 'application/json', '{"status":"live"}\n');
    if (path === '/readyz') {
      source.readiness().then(
        ({ ready, state, reason }) =>
          send(ready ? 200 : 503, 'application/json', `${JSON.stringify({ status: state, reason })}\n`),
        (error: unknown) =>
          send(503, 'application/json', `${JSON.stringify({ status: 'unknown', reason: describeError(error) })}\n`),
      );
      return;
    }
    if (path === '/metrics') {
      source.metrics().then(
        ({ contentType, body }) => send(200, contentType, body),
        (error: unknown) => send(500, 'text/plain', `metrics failed: ${describeError(error)}\n`),
      );
      return;
    }
    send(404, 'text/plain', 'operations endpoints: /livez /readyz /metrics\n');
  });
}
