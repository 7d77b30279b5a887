import pino from 'pino';
import { LineBlocks, type TraceIds } from './line-blocks.js';
import type { LogSink } from './log-sink.js';

/** The levels a log can be set to, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level of a log that is given none: a line per request, and every line above. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** `level` when it is one of {@link LOG_LEVELS}; a TypeError otherwise. */
export function checkLogLevel(level: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new TypeError(`logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  return level as LogLevel;
}

/** One log line's fields besides `time`, `level` and `message`. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** A request line's fields: what {@link LineBlocks.request} takes before the line's time. */
type RequestLine =
  Parameters<LineBlocks['request']> extends [...infer Fields, TraceIds | undefined, number]
    ? [...Fields, trace?: TraceIds]
    : never;

/** Writes one JSON object per line: `level`, `time`, the fields, then `message`. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * The line of one answered request (level info, message `request`), when info lines are written:
   * the fields {@link LineBlocks.request} takes, in its order, without the time (the logger reads the
   * clock). `status` is `aborted` when the answer was never written because the client had gone;
   * `durationMs` is written rounded to hundredths of a millisecond ({@link durationOnLine});
   * `errorCode` is the Error code of a failure (left off for a success); `trace`, the trace and span
   * the request was answered in (`trace_id`, `span_id`, as pino's OpenTelemetry mixins name them).
   */
  request(...line: RequestLine): void;
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

/** The duration a request line shows: rounded to hundredths of a millisecond. */
export function durationOnLine(ms: number): number {
  return Math.round(ms * 100) / 100;
}

// A line waits in its block at most this long; every way out of the process (a drain,
// `process.exit`, an uncaught exception's exit) writes what waits first.
const FLUSH_EVERY_MS = 200;
// Past this much waiting (the writes keep failing: a full disk), new blocks are dropped.
const MAX_WAITING_BYTES = 4 * 1024 * 1024;

/**
 * pino's destination (sonic-boom) on file descriptor `fd` (2 for stderr), given whole blocks of
 * bytes (its `buffer` content mode: a block is written as it is, not decoded into a string and
 * encoded again). Synchronous: each block is written whole, in order, before the next line is
 * taken, so that a line written as the process exits cannot land before the ones before it. A full
 * non-blocking pipe (EAGAIN) is waited for. On any other error the blocks are dropped and the server
 * goes on serving without its log rather than stopping on it (on EPIPE, the reader gone, pino stops
 * writing for good).
 */
export function fdDestination(fd: number): BlockDestination {
  const stream = pino.destination({ dest: fd, sync: true, maxLength: MAX_WAITING_BYTES, contentMode: 'buffer' });
  stream.on('error', () => {});
  // sonic-boom's types name only strings for `write`; in its buffer mode it takes bytes.
  return stream as unknown as BlockDestination;
}

/** sonic-boom in its buffer mode: bytes in; `drop` when a block is dropped past the waiting bound. */
interface BlockDestination {
  write(bytes: Uint8Array): boolean;
  on(event: 'drop', listener: () => void): unknown;
}

/**
 * Blocks of lines for file descriptor `fd`, written out every {@link FLUSH_EVERY_MS} and when the
 * process exits. Each block goes to sonic-boom as a copy: it keeps what it could not write yet, and
 * the block is filled again.
 */
export function fdBlocks(fd: number, worker: string): LineBlocks {
  const destination = fdDestination(fd);
  const blocks = new LineBlocks((bytes) => destination.write(Buffer.from(bytes)), worker);
  const timer = setInterval(() => blocks.hand(), FLUSH_EVERY_MS);
  timer.unref();
  process.on('exit', () => blocks.hand());
  return blocks;
}

export function createLogger(sink: LogSink | 'stderr', options: { level?: LogLevel; worker?: number } = {}): Logger {
  const worker = options.worker === undefined ? '' : `,"worker":${options.worker}`;
  // A sink of its own gets each request line as text, at once.
  const blocks =
    sink === 'stderr' ? fdBlocks(2, worker) : new LineBlocks((bytes) => sink.write(bytes.toString()), worker);
  const log = pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      messageKey: 'message',
      base: options.worker === undefined ? undefined : { worker: options.worker },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    sink === 'stderr' ? blocks : (sink as pino.DestinationStream),
  );
  // Only request lines wait for a block: any other line (start, stop, the store's health, a fault)
  // goes out at once, with whatever request lines were before it.
  const flush = sink === 'stderr' ? () => blocks.hand() : () => {};
  // The level is set once, here: whether request lines are written is known for good.
  const requestLines = log.isLevelEnabled('info');
  const writerOf =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      log[level](fields ?? {}, message);
      flush();
    };
  return {
    request(requestId, method, path, status, durationMs, errorCode, trace) {
      if (!requestLines) return;
      blocks.request(
        requestId,
        method,
        pathForLog(path),
        status,
        durationOnLine(durationMs),
        errorCode,
        trace,
        Date.now(),
      );
      if (sink !== 'stderr') blocks.hand();
    },
    debug: writerOf('debug'),
    info: writerOf('info'),
    warn: writerOf('warn'),
    error: writerOf('error'),
    enabled: (level) => log.isLevelEnabled(level),
    flush,
  };
}

/** A short, safe description of a fault for the log: its name and message, never a stack of data. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
