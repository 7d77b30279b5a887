// The log's lines gathered into one block of memory and handed out a block at a time. The request
// line, one per request, is encoded here as bytes straight into the block, in pino's form (the same
// keys in the same order, every string JSON-encoded): through pino's generic serialisation it cost
// a busy server a large share of its requests per second (bench/README.md, "Logs and metrics").

/** The ids of the span a request was answered in. */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

const BLOCK_BYTES = 65_536;
/** Request lines encoded together. */
const BATCH = 64;
// The most bytes a request line's fixed parts take: keys, time, worker, status, numbers.
const FIXED_BYTES = 320;
// The most bytes one UTF-16 unit of a string takes on the line: `\u001f`.
const MOST_PER_UNIT = 6;
const EMPTY = Buffer.alloc(0);

/** 1 for each character JSON writes as it is between quotes: printable ASCII but `"` and `\`. */
const PLAIN = /* @__PURE__ */ (() => {
  const table = new Uint8Array(0x7f);
  for (let c = 0x20; c < 0x7f; c++) table[c] = c === 0x22 || c === 0x5c ? 0 : 1;
  return table;
})();

/** Lines gathered into blocks of bytes, handed whole to `out`, in order. */
export class LineBlocks {
  readonly #bytes = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  #used = 0;
  readonly #out: (bytes: Buffer) => void;
  readonly #worker: string;
  // The start of a request line up to its first field (`{"level":"info","time":"…"` and the worker),
  // the second it was made for, and where its three digits of milliseconds are.
  #start = EMPTY;
  #startSecond = Number.NaN;
  #msOffset = 0;
  // The part from the method to the duration's key as last encoded, and what it was made of: most
  // requests are the one before's again (a run of creates).
  #middle = EMPTY;
  #method: string | undefined;
  #path: string | undefined;
  #status: number | 'aborted' | undefined;
  // Request lines not encoded yet, field by field: encoded a batch at a time, in a row, with the
  // code and the parts it copies still in the processor's caches from the line before.
  #waiting = 0;
  readonly #ids: (string | undefined)[] = new Array(BATCH).fill(undefined);
  readonly #methods: (string | undefined)[] = new Array(BATCH).fill(undefined);
  readonly #paths: string[] = new Array(BATCH).fill('');
  readonly #statuses: (number | 'aborted')[] = new Array(BATCH).fill(0);
  readonly #errorCodes: (number | undefined)[] = new Array(BATCH).fill(undefined);
  readonly #traces: (TraceIds | undefined)[] = new Array(BATCH).fill(undefined);
  readonly #durations = new Float64Array(BATCH);
  readonly #times = new Float64Array(BATCH);

  /**
   * `out` takes each block whole before it returns (the block is filled again after), `worker` is
   * the `,"worker":…` part of every request line, or nothing.
   */
  constructor(out: (bytes: Buffer) => void, worker = '') {
    this.#out = out;
    this.#worker = worker;
  }

  /** Any line, as text (pino's lines), after the lines before it. */
  write(line: string): void {
    this.#encodeWaiting();
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (line.length * 3 > BLOCK_BYTES - this.#used) {
      this.#handBlock();
      if (line.length * 3 > BLOCK_BYTES) {
        this.#out(Buffer.from(line));
        return;
      }
    }
    this.#used += this.#bytes.write(line, this.#used);
  }

  /**
   * The line of one answered request at `wallMs` (ms since the epoch): level info, time, worker, the
   * fields in this order (a request id, method, Error code or trace ids left off when undefined), message
   * `request`. The duration is written as given (the caller rounds it); a number JSON has no form
   * for is written `null`, as pino writes it.
   */
  request(
    requestId: string | undefined,
    method: string | undefined,
    path: string,
    status: number | 'aborted',
    durationMs: number,
    errorCode: number | undefined,
    trace: TraceIds | undefined,
    wallMs: number,
  ): void {
    const i = this.#waiting++;
    this.#ids[i] = requestId;
    this.#methods[i] = method;
    this.#paths[i] = path;
    this.#statuses[i] = status;
    this.#durations[i] = durationMs;
    this.#errorCodes[i] = errorCode;
    this.#traces[i] = trace;
    this.#times[i] = wallMs;
    if (this.#waiting === BATCH) this.#encodeWaiting();
  }

  /** Hands out the block (nothing when nothing waits), with every request line waiting. */
  hand(): void {
    this.#encodeWaiting();
    this.#handBlock();
  }

  #handBlock(): void {
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    this.#out(this.#bytes.subarray(0, used));
  }

  #encodeWaiting(): void {
    for (let i = 0; i < this.#waiting; i++) {
      this.#encode(i);
      // Strings let go of, so that a quiet server keeps no request's strings alive.
      this.#ids[i] = undefined;
      this.#paths[i] = '';
      this.#traces[i] = undefined;
    }
    this.#waiting = 0;
  }

  #encode(i: number): void {
    const requestId = this.#ids[i];
    const method = this.#methods[i];
    const path = this.#paths[i]!;
    const status = this.#statuses[i]!;
    const errorCode = this.#errorCodes[i];
    // A trace id and a span id are 48 hex digits, within the fixed bytes.
    const most =
      FIXED_BYTES +
      this.#worker.length +
      MOST_PER_UNIT * ((requestId?.length ?? 0) + (method?.length ?? 0) + path.length);
    if (most > BLOCK_BYTES - this.#used) this.#handBlock();
    // A line longer than a block (nothing the server logs) is encoded on its own.
    const b = most > BLOCK_BYTES ? Buffer.allocUnsafe(most) : this.#bytes;
    let at = b === this.#bytes ? this.#used : 0;
    at = copy(b, at, this.#startAt(Math.floor(this.#times[i]!)));
    if (requestId !== undefined) at = putString(b, put(b, at, ',"requestId":'), requestId);
    if (method === this.#method && path === this.#path && status === this.#status) at = copy(b, at, this.#middle);
    else at = this.#putMiddle(b, at, method, path, status);
    at = putNumber(b, at, this.#durations[i]!);
    if (errorCode !== undefined) at = putNumber(b, put(b, at, ',"errorCode":'), errorCode);
    const trace = this.#traces[i];
    if (trace !== undefined) {
      at = putString(b, put(b, at, ',"trace_id":'), trace.traceId);
      at = putString(b, put(b, at, ',"span_id":'), trace.spanId);
    }
    at = put(b, at, ',"message":"request"}\n');
    if (b === this.#bytes) this.#used = at;
    else this.#out(b.subarray(0, at));
  }

  /** Writes the method, path and status and the duration's key at `at`, and keeps them as `#middle`. */
  #putMiddle(b: Buffer, at: number, method: string | undefined, path: string, status: number | 'aborted'): number {
    const start = at;
    if (method !== undefined) at = putString(b, put(b, at, ',"method":'), method);
    at = putString(b, put(b, at, ',"path":'), path);
    at = put(b, at, ',"status":');
    at = status === 'aborted' ? put(b, at, '"aborted"') : putNumber(b, at, status);
    at = put(b, at, ',"durationMs":');
    this.#middle = Buffer.from(b.subarray(start, at));
    this.#method = method;
    this.#path = path;
    this.#status = status;
    return at;
  }

  /**
   * The start of a line at `ms` since the epoch: built anew when the second changes, else only its
   * three digits of milliseconds written over.
   */
  #startAt(ms: number): Buffer {
    const second = Math.floor(ms / 1000);
    if (second !== this.#startSecond) {
      this.#startSecond = second;
      const text = `{"level":"info","time":"${new Date(ms).toISOString()}"${this.#worker}`;
      this.#start = Buffer.from(text, 'latin1');
      this.#msOffset = text.indexOf('Z"') - 3;
      return this.#start;
    }
    const part = ms - second * 1000;
    this.#start[this.#msOffset] = 48 + Math.floor(part / 100);
    this.#start[this.#msOffset + 1] = 48 + (Math.floor(part / 10) % 10);
    this.#start[this.#msOffset + 2] = 48 + (part % 10);
    return this.#start;
  }
}

/** Copies `part` to `at`; returns where it ends. */
function copy(bytes: Buffer, at: number, part: Buffer): number {
  bytes.set(part, at);
  return at + part.length;
}

/** Writes ASCII `text` at `at`; returns where it ends. */
function put(bytes: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
  return at;
}

/** Writes `text` as a JSON string at `at`: byte by byte while it needs no escape, else as JSON.stringify gives it. */
function putString(bytes: Buffer, at: number, text: string): number {
  const start = at;
  bytes[at++] = 0x22;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || PLAIN[c] === 0) return start + bytes.write(JSON.stringify(text), start);
    bytes[at++] = c;
  }
  bytes[at++] = 0x22;
  return at;
}

/**
 * Writes `value` as JSON writes it (`null` where it is not finite). A whole number, or one of
 * hundredths (a rounded duration), is written digit by digit; any other through its text.
 */
function putNumber(bytes: Buffer, at: number, value: number): number {
  const hundredths = Math.round(value * 100);
  if (hundredths < 0 || hundredths >= 1e15 || hundredths / 100 !== value) {
    return put(bytes, at, Number.isFinite(value) ? String(value) : 'null');
  }
  const whole = Math.floor(hundredths / 100);
  const part = hundredths - whole * 100;
  at = putWhole(bytes, at, whole);
  if (part === 0) return at;
  bytes[at++] = 0x2e;
  bytes[at++] = 48 + Math.floor(part / 10);
  if (part % 10 !== 0) bytes[at++] = 48 + (part % 10);
  return at;
}

/** Writes a whole number from 0 below 1e13 digit by digit. */
function putWhole(bytes: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    bytes[i] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return at + digits;
}
