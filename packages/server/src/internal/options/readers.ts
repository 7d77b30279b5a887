// How the text of a flag or environment variable becomes an option's value. A reader throws a
// UsageError naming where the text came from (`--port`, or `PLANT_STORE_PORT`) and, unless it may be
// a secret, the text itself. A reader reads the syntax; where the server or the core has a rule for
// the value, `checked` applies that rule, so the CLI takes what the API takes.
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

/** Digits, with a decimal fraction when `fraction` (`0.5`), as a number; NaN for any other text. */
function digits(text: string, fraction = false): number {
  const trimmed = text.trim();
  return (fraction ? /^\d+(?:\.\d+)?$/ : /^\d+$/).test(trimmed) ? Number(trimmed) : Number.NaN;
}

/**
 * A whole number, called `unit` in the error (`a port number`). `min` and `max`: the range, for an
 * option whose value no API checks (an API's rule is applied by {@link checked}); `auto`: the word
 * `auto` as well, standing for what it returns.
 */
export function integer(bounds: { unit: string; min?: number; max?: number; auto?: () => number }): TextReader<number> {
  const { min = 0, max = Number.POSITIVE_INFINITY, unit, auto } = bounds;
  const range = bounds.max === undefined ? '' : ` from ${min} to ${max}`;
  return {
    takes: 'text',
    read(value, source) {
      if (auto !== undefined && value.trim().toLowerCase() === 'auto') return auto();
      const n = digits(value);
      if (!(n >= min && n <= max)) {
        const or = auto !== undefined ? ', or auto' : '';
        throw new UsageError(`${source} must be ${unit}${range}${or}, got ${quote(value)}`);
      }
      return n;
    },
  };
}

/** A number with an optional decimal fraction (`1.5`), called `unit` in the error; its range is an API's rule. */
export function decimal(unit: string): TextReader<number> {
  return {
    takes: 'text',
    read(value, source) {
      const n = digits(value, true);
      if (Number.isNaN(n)) throw new UsageError(`${source} must be ${unit}, got ${quote(value)}`);
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

const KIB = 1024;
const MIB = 1024 * KIB;

/** Bytes, or with `k` or `m` (1024-based), an optional `b` after: `512k`, `1mb`. Its range is an API's rule. */
export function size(): TextReader<number> {
  return {
    takes: 'text',
    read(value, source) {
      const match = /^(\d+)\s*([kKmM]?)[bB]?$/.exec(value.trim());
      if (match === null) {
        throw new UsageError(
          `${source} must be a size in bytes, optionally with k or m (1024-based), got ${quote(value)}`,
        );
      }
      const unit = match[2]?.toLowerCase();
      return Number(match[1]) * (unit === 'm' ? MIB : unit === 'k' ? KIB : 1);
    },
  };
}

/** `bytes` as {@link size} reads it, in its largest whole unit: `1m`, `512k`, `100`. */
export function sizeText(bytes: number): string {
  if (bytes > 0 && bytes % MIB === 0) return `${bytes / MIB}m`;
  if (bytes > 0 && bytes % KIB === 0) return `${bytes / KIB}k`;
  return String(bytes);
}

/** `<requests>/<seconds>`: `100/1`, `20/60`, `1/0.5`. Its range is an API's rule. */
export function rate(): TextReader<{ requests: number; seconds: number }> {
  return {
    takes: 'text',
    read(value, source) {
      const parts = value.split('/');
      const [requests = Number.NaN, seconds = Number.NaN] = parts.map((part) => digits(part, true));
      if (parts.length !== 2 || Number.isNaN(requests) || Number.isNaN(seconds)) {
        throw new UsageError(`${source} must be <requests>/<seconds>, e.g. 100/1 or 1/0.5, got ${quote(value)}`);
      }
      return { requests, seconds };
    },
  };
}

/**
 * Runs `check`, an API's own rule for a value: what it refuses (its TypeError or RangeError) is a
 * UsageError of its message after `source`, so the CLI refuses in the API's words.
 */
export function applyRule<T>(source: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) throw new UsageError(`${source}: ${error.message}`);
    throw error;
  }
}

/** `reader`'s value through `check`, an API's own rule for it (see {@link applyRule}). */
export function checked<T, U>(reader: TextReader<T>, check: (value: T) => U): TextReader<U> {
  return {
    takes: 'text',
    read(text, source) {
      const value = reader.read(text, source);
      return applyRule(source, () => check(value));
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
