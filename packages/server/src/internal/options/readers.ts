// How the text of a flag or environment variable becomes an option's value. A reader throws a
// UsageError naming where the text came from (`--port`, or `PLANT_STORE_PORT`) and, unless it may be
// a secret, the text itself.
import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/**
 * Reads an option's text: `text`, one string; `texts`, the values of a repeatable flag (a variable's
 * value split at commas); `switch`, a flag without a value, whose variable says yes or no.
 */
export type Reader<T> = TextReader<T> | TextsReader<T> | SwitchReader<T>;

export interface TextReader<T> {
  readonly takes: 'text';
  read(text: string, source: string): T;
}

export interface TextsReader<T> {
  readonly takes: 'texts';
  read(texts: readonly string[], source: string): T;
}

export interface SwitchReader<T> {
  readonly takes: 'switch';
  read(text: string, source: string): T;
}

const quote = (text: string) => JSON.stringify(text);

/** `a, b,,c` → `['a', 'b', 'c']`. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Any text; `nonEmpty`: not blank. Its form is the server's or the store's to check. */
export function text(check: { nonEmpty?: boolean } = {}): TextReader<string> {
  return {
    takes: 'text',
    read(value, source) {
      if (check.nonEmpty === true && value.trim() === '') throw new UsageError(`${source} must not be empty`);
      return value;
    },
  };
}

/** A comma-separated list in one value (`RS256,ES256`). */
export function commaList(): TextReader<string[]> {
  return { takes: 'text', read: (value) => splitList(value) };
}

/** The values of a repeatable flag, or of its comma-separated variable, through `check`. */
export function list<T = string[]>(check: (items: readonly string[], source: string) => T): TextsReader<T> {
  return { takes: 'texts', read: check };
}

/**
 * A whole number from `min` to `max`, called `unit` in the error (`a port number`); `auto`: the word
 * `auto` as well, standing for what it returns.
 */
export function integer(bounds: { min: number; max: number; unit: string; auto?: () => number }): TextReader<number> {
  const { min, max, unit, auto } = bounds;
  return {
    takes: 'text',
    read(value, source) {
      const trimmed = value.trim();
      if (auto !== undefined && trimmed.toLowerCase() === 'auto') return auto();
      const n = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
      if (!(n >= min && n <= max)) {
        const or = auto !== undefined ? ', or auto' : '';
        throw new UsageError(`${source} must be ${unit} from ${min} to ${max}${or}, got ${quote(value)}`);
      }
      return n;
    },
  };
}

/** Seconds (`5`, `1.5`, `5s`) or milliseconds (`500ms`), as whole milliseconds; 0 for none. */
export function duration(): TextReader<number> {
  return {
    takes: 'text',
    read(value, source) {
      const match = /^(\d{1,7}(?:\.\d{1,3})?)\s*(ms|s)?$/.exec(value.trim());
      const ms = match === null ? Number.NaN : Number(match[1]) * (match[2] === 'ms' ? 1 : 1000);
      if (!Number.isSafeInteger(ms)) {
        throw new UsageError(
          `${source} must be seconds (5, 1.5, 5s) or milliseconds (500ms), 0 for none, got ${quote(value)}`,
        );
      }
      return ms;
    },
  };
}

/** Bytes, or with `k` or `m` (1024-based), an optional `b` after: `512k`, `1mb`. */
export function size(): TextReader<number> {
  return {
    takes: 'text',
    read(value, source) {
      const match = /^(\d+)\s*([kKmM]?)[bB]?$/.exec(value.trim());
      const unit = match?.[2]?.toLowerCase();
      const bytes =
        match === null ? Number.NaN : Number(match[1]) * (unit === 'm' ? 1024 * 1024 : unit === 'k' ? 1024 : 1);
      if (!Number.isSafeInteger(bytes) || bytes <= 0) {
        throw new UsageError(
          `${source} must be a positive size in bytes, optionally with k or m (1024-based), got ${quote(value)}`,
        );
      }
      return bytes;
    },
  };
}

/** `<n>/<seconds>`: e.g. `100/1`, `20/60`. */
export function rate(): TextReader<{ requests: number; seconds: number }> {
  return {
    takes: 'text',
    read(value, source) {
      const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,5})\s*$/.exec(value);
      const requests = Number(match?.[1]);
      const seconds = Number(match?.[2]);
      if (match === null || !(requests >= 1) || !(seconds >= 1 && seconds <= 86_400)) {
        throw new UsageError(
          `${source} must be <requests>/<seconds>, e.g. 100/1 (1 or more requests, 1 to 86400 seconds), got ${quote(value)}`,
        );
      }
      return { requests, seconds };
    },
  };
}

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/** Yes or no, as every yes/no value and switch variable is written. */
function readYesNo(value: string, source: string): boolean {
  const word = value.trim().toLowerCase();
  if (YES.includes(word)) return true;
  if (NO.includes(word)) return false;
  // An empty value is a flag's (an empty variable is unset): its words are a flag's, yes before 1.
  const words = value === '' ? 'yes/on/true/1 or no/off/false/0' : `${YES.join('/')} or ${NO.join('/')}`;
  throw new UsageError(`${source} must be ${words}, got ${quote(value)}`);
}

/** A flag without a value; its variable says yes or no (`1`, `true`, `yes`, `on`, or the opposites). */
export function onOff(): SwitchReader<boolean> {
  return { takes: 'switch', read: readYesNo };
}

/** A value of yes or no (`--database-create-table no`). */
export function yesNo(): TextReader<boolean> {
  return { takes: 'text', read: readYesNo };
}

/** `auto`, or yes or no. */
export function autoOrYesNo(): TextReader<boolean | 'auto'> {
  return {
    takes: 'text',
    read(value, source) {
      if (value.trim().toLowerCase() === 'auto') return 'auto';
      try {
        return readYesNo(value, source);
      } catch {
        throw new UsageError(`${source} must be auto, on or off, got ${quote(value)}`);
      }
    },
  };
}

/** One of `choices`, as written. */
export function oneOf<const C extends string>(choices: readonly C[]): TextReader<C> {
  return {
    takes: 'text',
    read(value, source) {
      if (!(choices as readonly string[]).includes(value)) {
        throw new UsageError(`${source} must be one of ${choices.join(', ')}, got ${quote(value)}`);
      }
      return value as C;
    },
  };
}

/**
 * A file's content, read at start so that a bad one is a usage error. `decode` makes the value of the
 * bytes, or calls `refuse` with why they are none. The error names the path, never the content.
 */
export function fileOf<T>(decode: (bytes: Buffer, refuse: (why: string) => never) => T): TextReader<T> {
  return {
    takes: 'text',
    read(path, source) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (error) {
        throw new UsageError(`${source} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
      }
      return decode(bytes, (why) => {
        throw new UsageError(`${source} ${path}: ${why}`);
      });
    },
  };
}
