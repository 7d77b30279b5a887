// --workers: the reference server on every core with node:cluster. The primary forks the workers,
// which share the API port; it makes the token once, serves the operations listener (readiness from
// the workers, metrics summed over them), replaces a worker that dies, and drains them all on
// SIGTERM. A worker whose primary is gone drains and exits, so none is left holding the port.
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { DEFAULT_HOST, type PlantStore } from '@plant-store/core';
import { AggregatorRegistry } from 'prom-client';
import { type AssembledServer, assembleServer } from './assemble.js';
import type { CliCommand } from './cli-options.js';
import { drainAndExit, fail, reloadTokensOnHangup, startBanner } from './cli-lifecycle.js';
import { generateToken, needsGeneratedToken, resolveLogger } from './listener-parts.js';
import { describeError } from './logger.js';
import { baseUrl, listen } from './node-server.js';
import { openStore } from './open-store.js';
import { createOpsServer, type Readiness } from './ops.js';

type StartCommand = Extract<CliCommand, { kind: 'start' }>;

/** The tokens the primary settled, handed to each worker it forks. */
const TOKENS_VARIABLE = 'PLANT_STORE_CLUSTER_TOKENS';

/** What workers and the primary say to each other over the cluster's IPC channel. */
type Message =
  | { readonly plantStore: 'listening'; readonly url: string; readonly banner?: string }
  | { readonly plantStore: 'readiness?'; readonly id: number }
  | { readonly plantStore: 'readiness'; readonly id: number; readonly state: string; readonly reason: string };

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && typeof (value as { plantStore?: unknown }).plantStore === 'string';

/** A replacement waits this long after a crash, doubling for each crash in a row, up to 10 s. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;
/** A worker that lived this long resets the backoff: its death was not a crash loop. */
const STABLE_MS = 10_000;

/** Runs the primary: forks `command.workers` workers and prints the banner once they all listen. */
export async function runPrimary(command: StartCommand, write: (banner: string) => void): Promise<void> {
  const { options } = command;
  const count = command.workers ?? 1;
  const logger = resolveLogger(options);
  // One token set for every worker: a token made here is made once, printed once, accepted by all.
  // A token file or JWTs leave nothing to make: each worker reads the file itself.
  const tokens = options.tokens ?? (needsGeneratedToken(options) ? [generateToken()] : []);
  const env = { [TOKENS_VARIABLE]: JSON.stringify(tokens) };
  const note = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, string | number> = {}) => {
    if (logger !== undefined) logger[level](message, fields);
    else if (level !== 'info') process.stderr.write(`plant-store-server: ${message} ${JSON.stringify(fields)}\n`);
  };

  let stopping = false;
  let crashes = 0;
  const started = new Map<number, number>();
  const fork = () => {
    const worker = cluster.fork(env);
    started.set(worker.id, Date.now());
    return worker;
  };

  // Start-up: every worker must listen; one that fails stops the start (its own message says why).
  const listening = new Promise<{ url: string; banner?: string }>((resolve, reject) => {
    let ready = 0;
    let first: { url: string; banner?: string } | undefined;
    const onMessage = (_worker: Worker, message: unknown) => {
      if (!isMessage(message) || message.plantStore !== 'listening') return;
      first ??= { url: message.url, ...(message.banner !== undefined && { banner: message.banner }) };
      if (++ready === count) {
        cluster.off('message', onMessage);
        cluster.off('exit', onEarlyExit);
        resolve(first);
      }
    };
    const onEarlyExit = (_worker: Worker, code: number | null) =>
      reject(Object.assign(new Error('a worker failed to start'), { code }));
    cluster.on('message', onMessage);
    cluster.on('exit', onEarlyExit);
  });
  for (let i = 0; i < count; i++) fork();
  let first: { url: string; banner?: string };
  try {
    first = await listening;
  } catch (error) {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    logger?.flush();
    process.exit((error as { code?: number | null }).code === 2 ? 2 : 1);
  }

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) finish();
      return;
    }
    crashes = lived > STABLE_MS ? 0 : crashes + 1;
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, crashes - 1));
    note('error', 'worker exited; replacing it', {
      event: 'worker-replaced',
      worker: worker.id,
      pid: worker.process.pid ?? 0,
      ...(code !== null && { exitCode: code }),
      ...(signal !== null && { signal }),
      inMs: delay,
    });
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
  });

  const ops = options.ops === undefined ? undefined : createPrimaryOps(() => stopping);
  const opsHost = options.ops?.host ?? options.host ?? DEFAULT_HOST;
  let opsUrl: string | undefined;
  try {
    if (ops !== undefined) {
      await listen(ops, options.ops!.port, opsHost);
      opsUrl = baseUrl(ops, opsHost).url;
    }
  } catch (error) {
    stopping = true;
    process.stderr.write(`plant-store-server: could not start: the operations listener: ${describeError(error)}\n`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1);
    });
    return;
  }

  // The signals are ours before the banner says so: a supervisor that stops the server the moment it
  // reads "listening on" must get a drain and exit 0, not the default action of the signal.
  const finish = () => {
    note('info', 'stopped', { event: 'stop' });
    logger?.flush();
    if (ops === undefined) process.exit(0);
    ops.close(() => process.exit(0));
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      note('warn', `${signal} again: exiting without waiting`, { event: 'stop' });
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      logger?.flush();
      process.exit(1);
    }
    stopping = true;
    note('info', 'draining', { event: 'drain', signal, workers: Object.keys(cluster.workers ?? {}).length });
    const live = Object.values(cluster.workers ?? {});
    if (live.length === 0) return finish();
    for (const worker of live) worker?.process.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Every worker re-reads the token file; a worker started later reads the file as it is then.
  if (options.tokenFile !== undefined) {
    process.on('SIGHUP', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
    });
  }

  write(
    startBanner(options, {
      url: first.url,
      workers: count,
      tokens,
      ...(opsUrl !== undefined && { opsUrl }),
      ...(first.banner !== undefined && { storeBanner: first.banner }),
    }),
  );
  note('info', 'listening', { event: 'start', url: first.url, workers: count, pid: process.pid });
}

/** The primary's operations listener: readiness asked of the workers, metrics summed over them. */
function createPrimaryOps(stopping: () => boolean): Server {
  const registry = new AggregatorRegistry();
  let asked = 0;
  const server = createOpsServer({
    async readiness() {
      if (stopping()) return { ready: false, state: 'draining', reason: 'shutting down' };
      const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
      const answers = await Promise.all(workers.map((worker) => askReadiness(worker, ++asked)));
      const ready = answers.filter((answer) => answer?.state === 'ready').length;
      // Ready while any worker serves: a worker being replaced must not take the service out.
      if (ready > 0) return { ready: true, state: 'ready', reason: `${ready} of ${workers.length} workers ready` };
      const reason = answers.find((answer) => answer !== undefined)?.reason ?? 'no worker answered';
      return { ready: false, state: 'unavailable', reason };
    },
    async metrics() {
      return { contentType: registry.contentType, body: await registry.clusterMetrics() };
    },
  });
  return server;
}

function askReadiness(worker: Worker, id: number): Promise<{ state: string; reason: string } | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), 1_000);
    const onMessage = (message: unknown) => {
      if (isMessage(message) && message.plantStore === 'readiness' && message.id === id) done(message);
    };
    const done = (answer: { state: string; reason: string } | undefined) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      resolve(answer);
    };
    worker.on('message', onMessage);
    try {
      worker.send({ plantStore: 'readiness?', id } satisfies Message);
    } catch {
      done(undefined);
    }
  });
}

/** Runs one worker: the server on the shared port, with the primary's tokens, until SIGTERM or the primary goes. */
export async function runWorker(command: StartCommand): Promise<void> {
  const { ops: _, ...options } = command.options;
  const fromPrimary = JSON.parse(process.env[TOKENS_VARIABLE] ?? '[]') as string[] | 'any';
  const tokens = options.tokens ?? (Array.isArray(fromPrimary) && fromPrimary.length === 0 ? undefined : fromPrimary);
  let readiness: Readiness | undefined;
  let started: AssembledServer<PlantStore>;
  try {
    started = await assembleServer<PlantStore>({
      options: { ...options, ...(tokens !== undefined && { tokens }) },
      openStore: () => openStore(command.store),
      worker: {
        worker: cluster.worker?.id ?? 0,
        metrics: (metrics) => {
          // Making one is what makes a worker answer the primary's requests for its metrics.
          new AggregatorRegistry();
          AggregatorRegistry.setRegistries(metrics.registry);
        },
        readiness: (r) => {
          readiness = r;
        },
      },
    });
  } catch (error) {
    fail('could not start', error);
  }
  const { server, storeBanner } = started;
  process.on('message', (message: unknown) => {
    if (!isMessage(message) || message.plantStore !== 'readiness?') return;
    process.send?.({
      plantStore: 'readiness',
      id: message.id,
      state: readiness?.state ?? 'starting',
      reason: readiness?.reason ?? 'starting',
    } satisfies Message);
  });
  // Signals handled before the primary is told: it may pass one on as soon as it hears.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    drainAndExit(server);
  };
  process.on('SIGTERM', stop);
  // SIGINT reaches every process of a terminal's group: the primary decides, through SIGTERM.
  process.on('SIGINT', () => {});
  if (options.tokenFile !== undefined) reloadTokensOnHangup(server, options.log === true);
  // The primary is gone (killed): drain and exit rather than hold the port with no one to replace us.
  process.on('disconnect', stop);
  process.send?.({
    plantStore: 'listening',
    url: server.url,
    ...(storeBanner !== undefined && { banner: storeBanner }),
  } satisfies Message);
}
