// What the CLI's processes share: the start banner (the single process and the primary of --workers),
// the exit on a failure, the drain on a signal and the token file's reload on SIGHUP (the single
// process and every worker).
import type { TokenSet } from '@plant-store/core';
import { createLogger, describeError } from './logger.js';
import { MissingPackageError } from './open-store.js';
import type { PlantStoreServer, PlantStoreServerOptions } from './server-types.js';

/** An error's message, for a line on stderr. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** 2 for a value the checks refused or a package to install, 1 for a start or a run that failed. */
export function exitCodeOf(error: unknown): 1 | 2 {
  return error instanceof RangeError || error instanceof TypeError || error instanceof MissingPackageError ? 2 : 1;
}

/** Prints why, and exits with {@link exitCodeOf}. */
export function fail(what: string, error: unknown): never {
  process.stderr.write(`plant-store-server: ${what}: ${messageOf(error)}\n`);
  process.exit(exitCodeOf(error));
}

/** Where a process says that the spans it held were lost at its exit. */
export interface ExitLog {
  /** `--log` and `--log-level`: a line of the JSON log, or a plain line without it. */
  readonly options: Pick<PlantStoreServerOptions, 'log' | 'logLevel'>;
  /** A worker's number, on its log lines. */
  readonly worker?: number;
}

// What a drained process writes out before it exits: the spans `--otel` has not exported yet.
let flushBeforeExit: { readonly flush: () => Promise<void>; readonly log: ExitLog } | undefined;
// The longest the flush may hold the exit: an exporter whose endpoint is gone must not keep the
// process from stopping (the SDK's own export timeout is 10 s).
const FLUSH_LIMIT_MS = 10_000;

/** Has {@link drainAndExit} call `flush` after the drain, before the exit, and say on `log` if it fails. */
export function flushOnExit(flush: () => Promise<void>, log: ExitLog): void {
  flushBeforeExit = { flush, log };
}

/**
 * Runs `flush` for at most `limitMs`. Resolves to why it did not write everything out: its error, or
 * that it did not finish in time; to undefined when it did.
 */
export async function flushWithin(flush: () => Promise<void>, limitMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<string>((resolve) => {
    timer = setTimeout(resolve, limitMs, `the export did not finish within ${limitMs / 1000} s`);
  });
  const flushed = Promise.resolve()
    .then(flush)
    .then(
      () => undefined,
      (error: unknown) => describeError(error),
    );
  try {
    return await Promise.race([flushed, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** Says that the spans not yet exported are lost, and why: on the JSON log with `--log`, else a plain line. */
function reportLostSpans({ options, worker }: ExitLog, reason: string): void {
  const message = 'spans not exported at exit';
  if (options.log !== true) {
    process.stderr.write(`plant-store-server: --otel: ${message}: ${reason}\n`);
    return;
  }
  const logger = createLogger('stderr', {
    ...(options.logLevel !== undefined && { level: options.logLevel }),
    ...(worker !== undefined && { worker }),
  });
  logger.error(message, { event: 'spans-lost', error: reason });
}

/**
 * Drains `server` (requests in flight finish, its store closes), writes out what {@link flushOnExit}
 * was given (saying so when it could not), and exits 0; a failure exits through {@link fail}.
 */
export function drainAndExit(server: Pick<PlantStoreServer, 'close'>): void {
  server
    .close()
    .then(async () => {
      if (flushBeforeExit === undefined) return;
      const reason = await flushWithin(flushBeforeExit.flush, FLUSH_LIMIT_MS);
      if (reason !== undefined) reportLostSpans(flushBeforeExit.log, reason);
    })
    .then(
      () => process.exit(0),
      (error: unknown) => fail('shutdown failed', error),
    );
}

/**
 * Re-reads the server's token file on each SIGHUP. Without a JSON log (`logged` false), the outcome goes
 * to stderr, so an operator who sent the signal sees whether it took; with one, the server logs it.
 */
export function reloadTokensOnHangup(server: Pick<PlantStoreServer, 'reloadTokens'>, logged: boolean): void {
  process.on('SIGHUP', () => {
    server.reloadTokens().then(
      (entries) => {
        if (!logged) process.stderr.write(`plant-store-server: SIGHUP: ${entries} token entries accepted now\n`);
      },
      (error: unknown) => {
        if (!logged)
          process.stderr.write(`plant-store-server: SIGHUP: the previous tokens stay: ${describeError(error)}\n`);
      },
    );
  });
}

/** What the banner tells of a server that listens. */
export interface Started {
  /** The API's URL, base path included. */
  readonly url: string;
  /** How many processes serve, with --workers. */
  readonly workers?: number;
  readonly opsUrl?: string;
  /** The line about the store the command line chose. */
  readonly storeBanner?: string;
  /** The accepted tokens as the server settled them (a generated one included). */
  readonly tokens: readonly string[] | 'any' | TokenSet;
}

/**
 * The start banner, written in one go: a program that waits for "listening on" then reads the token
 * must find it in the same chunk.
 */
export function startBanner(options: PlantStoreServerOptions, started: Started): string {
  const { workers, tokens } = started;
  const lines = [
    `Plant Store server listening on ${started.url}${workers === undefined ? '' : ` (${workers} worker${workers === 1 ? '' : 's'})`}`,
  ];
  if (started.opsUrl !== undefined) lines.push(`Operations: ${started.opsUrl}/livez, /readyz, /metrics`);
  if (started.storeBanner !== undefined) lines.push(started.storeBanner);
  const accepting = acceptingLine(options);
  if (tokens === 'any') lines.push('Accepting any bearer token (--any-token).');
  else if (accepting !== undefined) lines.push(accepting);
  else if (options.tokens === undefined && Array.isArray(tokens)) lines.push(`Token: ${tokens.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** The banner's line about what is accepted, when it is not a token printed for the operator to copy. */
function acceptingLine(options: PlantStoreServerOptions): string | undefined {
  const parts: string[] = [];
  if (options.tokenFile !== undefined) parts.push(`the tokens of ${options.tokenFile} (SIGHUP re-reads it)`);
  if (options.auth?.jwt !== undefined) parts.push(`JWTs from ${[options.auth.jwt.issuer].flat().join(', ')}`);
  return parts.length === 0 ? undefined : `Accepting ${parts.join(' and ')}.`;
}
