// The bytes of the log on stderr: lines are encoded into one block of memory here and written out a
// block at a time (a write per line cost a busy server a third of its CPU). A request line whose
// strings have nothing to escape (the common case: a generated request id, a method, `/plants`) is
// written byte by byte into the block, with no string built for it: building and encoding the line
// as a string was most of what `--log` cost a request.
import { writeSync } from 'node:fs';

/** Where full blocks go: written whole before `write` returns, so the block can be filled again. */
export interface BlockWriter {
  write(bytes: Uint8Array): void;
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/**
 * A writer to a file descriptor (2, for stderr): the bytes written whole, in order, before it returns,
 * so that one block is filled and written again and again. A fresh block for every write (what
 * sonic-boom needs, as it may keep the bytes it could not write yet) touched new memory every few
 * hundred lines. A full non-blocking pipe (EAGAIN) is waited for; on any other error (the reader of
 * the pipe has gone) the block is dropped: the server goes on serving without its log rather than
 * stopping on it.
 */
export function fdWriter(fd: number): BlockWriter {
  return {
    write(bytes) {
      let at = 0;
      while (at < bytes.length) {
        try {
          at += writeSync(fd, bytes, at, bytes.length - at);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
          Atomics.wait(SLEEP, 0, 0, 1);
        }
      }
    },
  };
}

/** The fields of a request line, in their order on the line. */
export interface RequestLine {
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly path: string;
  /** `aborted`: the answer was never written because the client had gone. */
  readonly status: number | 'aborted';
  /** Written rounded to hundredths of a millisecond, as {@link durationOnLine} gives it. */
  readonly durationMs: number;
  /** The Error code of a failure's body (left off the line for a success). */
  readonly errorCode: number | undefined;
}

const BLOCK_BYTES = 65_536;
/** Request lines encoded together. */
const BATCH = 64;
const EMPTY = Buffer.alloc(0);
const ERROR_CODE = Buffer.from(',"errorCode":', 'latin1');
const END = Buffer.from(',"message":"request"}\n', 'latin1');

/** Lines gathered into blocks of bytes for `out`, in order. */
export class LineBlocks {
  private readonly bytes = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  private used = 0;
  // The encoded parts of the last request line, and what they were made of: the start (up to the
  // request id's opening quote), and the part from its closing quote to the duration.
  private start: Buffer = EMPTY;
  // The second `start` was built for, and where its digits of milliseconds are.
  private startSecond = Number.NaN;
  private msAt = 0;
  private method: string | undefined = '';
  private path = '';
  private status: number | 'aborted' = 0;
  private middle = EMPTY;
  // The ms since the epoch `start` was made for.
  private timeMs = Number.NaN;
  // Request lines not encoded yet, field by field: a line costs the request no object, and its
  // wall-clock time (ms since the epoch) and duration no boxed number.
  private waiting = 0;
  private readonly ids: (string | undefined)[] = new Array(BATCH).fill(undefined);
  private readonly methods: (string | undefined)[] = new Array(BATCH).fill(undefined);
  private readonly paths: string[] = new Array(BATCH).fill('');
  private readonly statuses: (number | 'aborted')[] = new Array(BATCH).fill(0);
  private readonly errorCodes: (number | undefined)[] = new Array(BATCH).fill(undefined);
  private readonly durations = new Float64Array(BATCH);
  private readonly times = new Float64Array(BATCH);

  /** `worker`: the `,"worker":…` part of every request line, or nothing. */
  constructor(
    private readonly out: BlockWriter,
    private readonly worker = '',
  ) {}

  /** Any line, as a string (pino's lines), after the request lines before it. */
  write(line: string): void {
    this.encodeWaiting();
    this.writeText(line);
  }

  /**
   * A request line (the fields of {@link RequestLine}, in its order), `wallMs` its time in ms since
   * the epoch. Lines are encoded a batch at a time: encoding each as its request ends measured
   * several times slower than encoding many in a row, with the code and the parts it copies still
   * in the processor's caches from the line before.
   */
  request(
    requestId: string | undefined,
    method: string | undefined,
    path: string,
    status: number | 'aborted',
    durationMs: number,
    errorCode: number | undefined,
    wallMs: number,
  ): void {
    const i = this.waiting++;
    this.ids[i] = requestId;
    this.methods[i] = method;
    this.paths[i] = path;
    this.statuses[i] = status;
    this.durations[i] = durationMs;
    this.errorCodes[i] = errorCode;
    this.times[i] = wallMs;
    if (this.waiting === BATCH) this.encodeWaiting();
  }

  /** Writes out the block (nothing when it is empty), with every request line waiting. */
  hand(): void {
    this.encodeWaiting();
    this.writeBlock();
  }

  private encodeWaiting(): void {
    for (let i = 0; i < this.waiting; i++) {
      if (!this.encode(i)) {
        const line: RequestLine = {
          requestId: this.ids[i],
          method: this.methods[i],
          path: this.paths[i]!,
          status: this.statuses[i]!,
          durationMs: this.durations[i]!,
          errorCode: this.errorCodes[i],
        };
        this.writeText(requestLineText(line, isoTimeOf(Math.floor(this.times[i]!)), this.worker));
      }
      // Strings let go of, so that a quiet server keeps no request's strings alive.
      this.ids[i] = undefined;
      this.paths[i] = '';
    }
    this.waiting = 0;
  }

  private writeText(line: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (line.length * 3 > BLOCK_BYTES - this.used) {
      this.writeBlock();
      if (line.length * 3 > BLOCK_BYTES) {
        this.out.write(Buffer.from(line));
        return;
      }
    }
    this.used += this.bytes.write(line, this.used);
  }

  /**
   * The request line `requestLineText` would give, written as bytes; false (nothing written) when a
   * string on it has a character JSON would escape, or one past ASCII: the caller writes the text then.
   * Most of a line is the same from one request to the next, so its parts are kept encoded and
   * copied: the start (its digits of milliseconds change), the method, path and status, and the end.
   * A line without a request id is left to the text.
   */
  private encode(i: number): boolean {
    const requestId = this.ids[i];
    if (requestId === undefined) return false;
    const method = this.methods[i];
    const path = this.paths[i]!;
    const status = this.statuses[i]!;
    const errorCode = this.errorCodes[i];
    const ms = Math.floor(this.times[i]!);
    if (ms !== this.timeMs) this.startAt(ms);
    if (method !== this.method || path !== this.path || status !== this.status) {
      if (!plain(path) || (method !== undefined && !plain(method))) return false;
      this.method = method;
      this.path = path;
      this.status = status;
      this.middle = Buffer.from(
        `"${method === undefined ? '' : `,"method":"${method}"`},"path":"${path}","status":${status === 'aborted' ? '"aborted"' : status},"durationMs":`,
        'latin1',
      );
    }
    const start = this.start;
    const middle = this.middle;
    // The longest line: the parts, the request id, and at most 60 characters of numbers.
    const most = start.length + middle.length + requestId.length + 100;
    if (most > BLOCK_BYTES - this.used) this.writeBlock();
    if (most > BLOCK_BYTES) return false;
    const b = this.bytes;
    let at = copy(b, this.used, start);
    for (let k = 0; k < requestId.length; k++) {
      const c = requestId.charCodeAt(k);
      // Nothing is kept of a line given up: `used` has not moved.
      if (c > 0x7e || PLAIN[c] === 0) return false;
      b[at++] = c;
    }
    at = copy(b, at, middle);
    const hundredths = hundredthsOf(this.durations[i]!);
    at =
      hundredths === undefined
        ? put(b, at, JSON.stringify(durationOnLine(this.durations[i]!)))
        : putHundredths(b, at, hundredths);
    if (errorCode !== undefined) at = putWhole(b, copy(b, at, ERROR_CODE), errorCode);
    this.used = copy(b, at, END);
    return true;
  }

  /**
   * Makes `start` the start of a line at `ms` since the epoch: built anew when the second changes,
   * else only its three digits of milliseconds written over.
   */
  private startAt(ms: number): void {
    this.timeMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== this.startSecond) {
      this.startSecond = second;
      const text = `{"level":"info"${isoTimeOf(ms)}${this.worker},"requestId":"`;
      this.start = Buffer.from(text, 'latin1');
      this.msAt = text.indexOf('Z"') - 3;
      return;
    }
    const part = ms - second * 1000;
    this.start[this.msAt] = 48 + Math.floor(part / 100);
    this.start[this.msAt + 1] = 48 + (Math.floor(part / 10) % 10);
    this.start[this.msAt + 2] = 48 + (part % 10);
  }

  private writeBlock(): void {
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    this.out.write(this.bytes.subarray(0, used));
  }
}

/** The request line as text, `time` its `,"time":…` part: the bytes {@link LineBlocks} writes for it. */
export function requestLineText(line: RequestLine, time: string, worker: string): string {
  const hundredths = hundredthsOf(line.durationMs);
  const duration =
    hundredths === undefined ? JSON.stringify(durationOnLine(line.durationMs)) : hundredthsText(hundredths);
  return `{"level":"info"${time}${worker}${line.requestId === undefined ? '' : `,"requestId":${JSON.stringify(line.requestId)}`}${line.method === undefined ? '' : `,"method":${JSON.stringify(line.method)}`},"path":${JSON.stringify(line.path)},"status":${line.status === 'aborted' ? '"aborted"' : line.status},"durationMs":${duration}${line.errorCode === undefined ? '' : `,"errorCode":${line.errorCode}`},"message":"request"}\n`;
}

/** The duration a line shows: rounded to hundredths of a millisecond. */
export function durationOnLine(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** pino's time part of a line, `,"time":"<ISO 8601>"`, for `ms` since the epoch. */
export function isoTimeOf(ms: number): string {
  return `,"time":"${new Date(ms).toISOString()}"`;
}

/** 1 for each character JSON writes as it is between quotes: printable ASCII but `"` and `\`. */
const PLAIN = /* @__PURE__ */ (() => {
  const table = new Uint8Array(0x7f);
  for (let c = 0x20; c < 0x7f; c++) table[c] = c === 0x22 || c === 0x5c ? 0 : 1;
  return table;
})();

/** Whether JSON writes `text` as it is between quotes. */
function plain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || PLAIN[c] === 0) return false;
  }
  return true;
}

/** Copies `part` to `at`; returns where it ends. */
function copy(bytes: Buffer, at: number, part: Uint8Array): number {
  bytes.set(part, at);
  return at + part.length;
}

/** Writes ASCII `text` at `at`; returns where it ends. */
function put(bytes: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
  return at;
}

/** Writes a whole number (a status, an Error code) at `at`, as JSON does. */
function putWhole(bytes: Buffer, at: number, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) return put(bytes, at, JSON.stringify(value));
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    bytes[i] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}

/**
 * `ms` in hundredths of a millisecond, rounded, as whole numbers are cheaper to write than a
 * fraction; undefined below 0, past 15 digits (where JSON's shortest form of the number may differ
 * from the digits) and for NaN: JSON writes the duration then.
 */
function hundredthsOf(ms: number): number | undefined {
  const hundredths = Math.round(ms * 100);
  return hundredths >= 0 && hundredths < 1e15 ? hundredths : undefined;
}

/** A number of hundredths as JSON writes the number they make: `125` → `1.25`, `120` → `1.2`, `100` → `1`. */
function putHundredths(bytes: Buffer, at: number, hundredths: number): number {
  const whole = Math.floor(hundredths / 100);
  const part = hundredths - whole * 100;
  at = putWhole(bytes, at, whole);
  if (part === 0) return at;
  bytes[at++] = 46; // .
  bytes[at++] = 48 + Math.floor(part / 10);
  if (part % 10 !== 0) bytes[at++] = 48 + (part % 10);
  return at;
}

function hundredthsText(hundredths: number): string {
  const whole = Math.floor(hundredths / 100);
  const part = hundredths - whole * 100;
  if (part === 0) return `${whole}`;
  return `${whole}.${Math.floor(part / 10)}${part % 10 === 0 ? '' : part % 10}`;
}
