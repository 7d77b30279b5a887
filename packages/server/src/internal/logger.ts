import pino from 'pino';
import type { LogSink } from '../create-plant-store-listener.js';

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

/**
 * A logger writing JSON lines to `sink` (`'stderr'`: file descriptor 2, buffered and flushed at
 * exit), through pino. Every value is JSON-encoded, so a client-controlled string (path, method,
 * request id) cannot forge a line or a field. Callers never pass a token, a password, the
 * `Authorization` header or a body: the fields are chosen at each call. `worker` goes on every line.
 */
export function createLogger(sink: LogSink | 'stderr', options: { level?: LogLevel; worker?: number } = {}): Logger {
  const destination =
    sink === 'stderr' ? pino.destination({ dest: 2, sync: false, minLength: 0 }) : (sink as pino.DestinationStream);
  const log = pino(
    {
      level: options.level ?? 'info',
      messageKey: 'message',
      base: options.worker === undefined ? undefined : { worker: options.worker },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
    enabled: (level) => log.isLevelEnabled(level),
    flush: () => {
      if (sink === 'stderr') (destination as ReturnType<typeof pino.destination>).flushSync();
    },
  };
}

/** A short, safe description of a fault for the log: its name and message, never a stack of data. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
