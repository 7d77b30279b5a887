// A deliberately dumb HTTP/1.1 client on node:net: it writes exactly the bytes a test gives it
// (no framing fixed up, no headers added) and parses what comes back, so hostile requests reach
// the server as written. Every wait is bounded by a timer and ends by itself.
import { connect, type Socket } from 'node:net';
import type { Answer } from './spec-oracle.js';

/** One parsed response, plus the raw head for header checks that care about repetition. */
export interface RawAnswer extends Answer {
  readonly head: string;
}

interface Parsed {
  readonly answers: RawAnswer[];
  /** Bytes of an answer that has started but not finished. */
  readonly partial: boolean;
}

/** Parses every complete response in `buf`. A response without a length ends at close (`closed`). */
export function parseResponses(buf: Buffer, closed: boolean): Parsed {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < buf.length) {
    const headEnd = buf.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return { answers, partial: true };
    const head = buf.subarray(at, headEnd).toString('latin1');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      const name = line.slice(0, i).trim().toLowerCase();
      const value = line.slice(i + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', bodyStart);
        if (lineEnd < 0) return { answers, partial: true };
        const size = parseInt(buf.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) throw new Error(`bad chunk size from server: ${head}`);
        if (lineEnd + 2 + size + 2 > buf.length) return { answers, partial: true };
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (bodyStart + length > buf.length) return { answers, partial: true };
      body = buf.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    } else if (status === 204 || status === 304) {
      body = Buffer.alloc(0);
    } else {
      if (!closed) return { answers, partial: true };
      body = buf.subarray(bodyStart);
      bodyStart = buf.length;
    }
    answers.push({ status, headers, body: body.toString('utf8'), head });
    at = bodyStart;
  }
  return { answers, partial: false };
}

/** A socket under the test's control: write when it likes, wait for answers or the close. */
export class RawClient {
  readonly socket: Socket;
  private buf = Buffer.alloc(0);
  private closedFlag = false;
  private errorText: string | undefined;
  private waiters = new Set<() => void>();
  /** For each answer, whether this side could still send bytes when the answer had fully arrived. */
  readonly writableAtAnswer: boolean[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      try {
        const count = parseResponses(this.buf, false).answers.length;
        while (this.writableAtAnswer.length < count) this.writableAtAnswer.push(this.writable);
      } catch {
        // unparseable bytes: `received` shows them
      }
      this.wake();
    });
    socket.on('error', (e) => {
      this.errorText = e.message;
    });
    socket.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
  }

  static open(port: number, host = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      socket.once('connect', () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake() {
    for (const w of this.waiters) w();
  }

  /** Writes bytes; resolves false instead of throwing when the server has already cut us off. */
  write(data: string | Uint8Array): Promise<boolean> {
    if (this.socket.destroyed || !this.socket.writable) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.socket.write(data, (err) => resolve(!err));
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** True while we can still send bytes: the server has neither closed nor reset the connection. */
  get writable(): boolean {
    return !this.closedFlag && this.socket.writable && !this.socket.destroyed;
  }

  get error(): string | undefined {
    return this.errorText;
  }

  get received(): Buffer {
    return this.buf;
  }

  answers(): RawAnswer[] {
    return parseResponses(this.buf, this.closedFlag).answers;
  }

  /** Waits until `count` answers are complete, the socket closes, or `ms` pass; never rejects. */
  waitFor(count: number, ms: number): Promise<RawAnswer[]> {
    return this.until(() => this.closedFlag || this.answers().length >= count, ms).then(() => this.answers());
  }

  /** Waits until the server closes the connection, or `ms` pass; resolves whether it closed. */
  waitForClose(ms: number): Promise<boolean> {
    return this.until(() => this.closedFlag, ms).then(() => this.closedFlag);
  }

  private until(done: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        let ok = true;
        try {
          ok = done();
        } catch {
          ok = true; // unparseable bytes: let the caller look at `received`
        }
        if (ok) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(check);
      check();
    });
  }

  destroy() {
    this.socket.destroy();
  }
}

/** Sends `data` on a new connection and collects what comes back, up to `count` answers or close. */
export async function exchange(
  port: number,
  data: string | Uint8Array,
  opts: { count?: number; ms?: number } = {},
): Promise<{ answers: RawAnswer[]; closed: boolean; received: Buffer; client: RawClient }> {
  const client = await RawClient.open(port);
  await client.write(data);
  const answers = await client.waitFor(opts.count ?? 1, opts.ms ?? 5_000);
  const closed = client.closed;
  const received = client.received;
  client.destroy();
  return { answers, closed, received, client };
}

/** A well-formed POST /plants request with a Content-Length, as bytes. */
export function postBytes(
  body: string | Uint8Array,
  opts: { token?: string | null; path?: string; contentType?: string | null; extraHeaders?: string[]; close?: boolean } = {},
): Buffer {
  const bodyBuf = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const lines = [`POST ${opts.path ?? '/plants'} HTTP/1.1`, 'Host: 127.0.0.1'];
  if (opts.token !== null) lines.push(`Authorization: Bearer ${opts.token ?? 'hardening-token'}`);
  if (opts.contentType !== null) lines.push(`Content-Type: ${opts.contentType ?? 'application/json'}`);
  lines.push(`Content-Length: ${bodyBuf.length}`);
  if (opts.close !== false) lines.push('Connection: close');
  lines.push(...(opts.extraHeaders ?? []));
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bodyBuf]);
}
