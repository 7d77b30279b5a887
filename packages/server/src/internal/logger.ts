import pino from 'pino';
import type { LogSink } from '../create-plant-store-listener.js';
import { fdWriter, isoTimeOf, LineBlocks, type RequestLine, requestLineText } from './line-blocks.js';

/** The levels a log can be set to, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One log line's fields besides `time`, `level` and `message`. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** Writes one JSON object per line: `time`, `level`, `message`, then the fields. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * The line of one answered request (level info, message `request`), when info lines are written:
   * the fields of {@link RequestLine} in its order, as {@link LineBlocks.request} takes them, but the
   * last is the `performance.now()` of the answer (the logger puts it on the wall clock).
   */
  request(...line: Parameters<LineBlocks['request']>): void;
  /** Whether lines of `level` are written (to skip building fields that would be dropped). */
  enabled(level: LogLevel): boolean;
  /** Writes out what is buffered (before the process exits). */
  flush(): void;
}

// A path is client-controlled and may be up to the header limit long; a log line need not be.
const MAX_PATH_IN_LOG = 1024;

/** A path fit for a log line: bounded length (JSON escaping is done by the writer). */
export function pathForLog(path: string): string {
  return path.length > MAX_PATH_IN_LOG ? `${path.slice(0, MAX_PATH_IN_LOG)}…` : path;
}

// A line waits in its block at most this long; every way out of the process (a drain,
// `process.exit`, an uncaught exception's exit) writes what waits first.
const FLUSH_EVERY_MS = 200;

/** A pino destination for file descriptor 2 that writes blocks of lines, in order, none lost at exit. */
function stderrBlocks(worker: string): LineBlocks {
  // Synchronous: each block is written whole, in order, before the next line is taken. An asynchronous
  // write still in flight could land after the synchronous one an exit makes (a `stopped` line was seen
  // amid the request lines before it), and with lines gathered into blocks the writes are few enough
  // that writing them from the thread pool measured no faster.
  const blocks = new LineBlocks(fdWriter(2), worker);
  const timer = setInterval(() => {
    blocks.hand();
    syncWallClock();
  }, FLUSH_EVERY_MS);
  timer.unref();
  process.on('exit', () => blocks.hand());
  return blocks;
}

// A request line's time is its answer's `performance.now()` (which the listener reads anyway) on
// the wall clock: `performance.timeOrigin` plus it, moved where the wall clock has drifted from the
// monotonic one (NTP, a clock set) so that lines stay within a millisecond of `Date.now()`.
let wallOffset = performance.timeOrigin;
function syncWallClock(): void {
  // Date.now() is whole milliseconds: a wall clock in step reads up to 1 ms behind.
  const drift = Date.now() - (wallOffset + performance.now());
  if (drift > 0 || drift < -1) wallOffset += drift;
}

let lastMs = Number.NaN;
let lastTime = '';
/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), built once per millisecond: a busy server writes many
 * lines in the same one, and `toISOString` was a measurable share of a request's CPU.
 */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = isoTimeOf(now);
  }
  return lastTime;
}

/**
 * A logger writing JSON lines to `sink` (`'stderr'`: file descriptor 2, buffered as above), through pino. Every value is JSON-encoded, so a client-controlled string (path, method,
 * request id) cannot forge a line or a field. Callers never pass a token, a password, the
 * `Authorization` header or a body: the fields are chosen at each call. `worker` goes on every line.
 */
export function createLogger(sink: LogSink | 'stderr', options: { level?: LogLevel; worker?: number } = {}): Logger {
  const worker = options.worker === undefined ? '' : `,"worker":${options.worker}`;
  const blocks = sink === 'stderr' ? stderrBlocks(worker) : undefined;
  const destination = blocks ?? (sink as pino.DestinationStream);
  const log = pino(
    {
      level: options.level ?? 'info',
      messageKey: 'message',
      base: options.worker === undefined ? undefined : { worker: options.worker },
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  // Only request lines wait for a block: any other line (start, stop, the store's health, a fault)
  // goes out at once, with whatever request lines were before it.
  const now = blocks === undefined ? () => {} : () => blocks.hand();
  // The level is set once, here: whether request lines are written is known for good.
  const requestLines = log.isLevelEnabled('info');
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      log[level](fields ?? {}, message);
      now();
    };
  return {
    // The one line per request, written as pino writes the others (the same keys in the same order,
    // every string JSON-encoded) without pino's generic serialisation, which cost a tenth of a
    // request's instructions.
    request(requestId, method, path, status, durationMs, errorCode, at) {
      if (!requestLines) return;
      path = pathForLog(path);
      if (blocks !== undefined) blocks.request(requestId, method, path, status, durationMs, errorCode, wallOffset + at);
      else
        destination.write(
          requestLineText({ requestId, method, path, status, durationMs, errorCode }, isoTime(), worker),
        );
    },
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    enabled: (level) => log.isLevelEnabled(level),
    flush: () => blocks?.hand(),
  };
}

/** A short, safe description of a fault for the log: its name and message, never a stack of data. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
