import type { LogSink } from '../create-plant-store-listener.js';

/** One log line's fields besides `time` and `level`. Values are written with `JSON.stringify`. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** Writes one JSON object per line. */
export interface Logger {
  info(fields: LogFields): void;
  warn(fields: LogFields): void;
  error(fields: LogFields): void;
}

// A path is client-controlled and may be up to the header limit long; a log line need not be.
const MAX_PATH_IN_LOG = 1024;

/** A path fit for a log line: bounded length (JSON escaping is done by the writer). */
export function pathForLog(path: string): string {
  return path.length > MAX_PATH_IN_LOG ? `${path.slice(0, MAX_PATH_IN_LOG)}…` : path;
}

/**
 * A logger writing JSON lines to `sink`. Every value goes through `JSON.stringify`, so a
 * client-controlled string (path, method, request id) cannot forge a line or a field. Callers
 * never pass a token, the `Authorization` header or a body: the fields are chosen at each call.
 */
export function createLogger(sink: LogSink): Logger {
  const write = (level: string, fields: LogFields): void => {
    sink.write(`${JSON.stringify({ time: new Date().toISOString(), level, ...fields })}\n`);
  };
  return {
    info: (fields) => write('info', fields),
    warn: (fields) => write('warn', fields),
    error: (fields) => write('error', fields),
  };
}

/** A short, safe description of a fault for the log: its name and message, never a stack of data. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
