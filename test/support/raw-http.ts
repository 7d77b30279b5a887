// The one raw HTTP/1.1 client of the test suites, on node:net. It writes exactly the bytes a test
// gives it to 127.0.0.1 (no framing fixed up, no header added), so what fetch would refuse or repair
// (a Content-Length that disagrees with the body, two framings at once, a bad chunk size, a head
// that never ends) reaches the server as written, and it parses what comes back. Every wait is
// bounded by a timer and resolves, never rejects: the test then asserts on what arrived.
import { connect, type Socket } from 'node:net';

/** How long a wait lasts unless the test says otherwise: a hang guard, not a speed check. */
const WAIT_MS = 5_000;

/** One final response as it came off the wire. */
export interface RawAnswer {
  readonly status: number;
  /** Lower-case names; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as UTF-8 text, chunked framing removed. */
  readonly body: string;
  /** The status line and header lines as sent, for checks that care about repetition or order. */
  readonly head: string;
}

interface Parsed {
  /** Complete final responses, in order; interim 1xx responses are left out. */
  readonly answers: RawAnswer[];
  /** Where the bytes after the last complete response begin. */
  readonly end: number;
}

/**
 * Parses every complete response in `bytes`: a body framed by Content-Length or chunked encoding,
 * none for 1xx, 204 and 304, otherwise everything up to the close (RFC 9112 §6.3), which counts
 * only once `closed`. Not for answers to HEAD, which carry a length and no body.
 */
function parseResponses(bytes: Buffer, closed: boolean): Parsed {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return { answers, end: at };
    const head = bytes.subarray(at, headEnd).toString('latin1');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      // An interim answer (100 Continue) has no body; the final one follows it.
      at = bodyStart;
      continue;
    }
    let body: Buffer;
    let next: number;
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const chunked = readChunked(bytes, bodyStart, head);
      if (chunked === undefined) return { answers, end: at };
      ({ body, next } = chunked);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (!Number.isSafeInteger(length) || length < 0) throw new Error(`bad Content-Length from the server: ${head}`);
      if (bodyStart + length > bytes.length) return { answers, end: at };
      body = bytes.subarray(bodyStart, bodyStart + length);
      next = bodyStart + length;
    } else if (status === 204 || status === 304) {
      body = Buffer.alloc(0);
      next = bodyStart;
    } else {
      if (!closed) return { answers, end: at };
      body = bytes.subarray(bodyStart);
      next = bytes.length;
    }
    answers.push({ status, headers, body: body.toString('utf8'), head });
    at = next;
  }
}

/** The data of a chunked body starting at `at`, and where it ends (after any trailer); undefined while incomplete. */
function readChunked(bytes: Buffer, at: number, head: string): { body: Buffer; next: number } | undefined {
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const sizeText = bytes.subarray(at, lineEnd).toString('latin1');
    const size = Number.parseInt(sizeText, 16);
    if (!/^[0-9a-f]/i.test(sizeText) || Number.isNaN(size)) throw new Error(`bad chunk size from the server: ${head}`);
    at = lineEnd + 2;
    if (size === 0) break;
    if (at + size + 2 > bytes.length) return undefined;
    parts.push(bytes.subarray(at, at + size));
    at += size + 2;
  }
  // The last chunk is followed by trailer lines, if any, and an empty line.
  if (bytes.length < at + 2) return undefined;
  if (bytes.subarray(at, at + 2).toString('latin1') === '\r\n') return { body: Buffer.concat(parts), next: at + 2 };
  const trailerEnd = bytes.indexOf('\r\n\r\n', at);
  return trailerEnd < 0 ? undefined : { body: Buffer.concat(parts), next: trailerEnd + 4 };
}

/** A connection under the test's control: write when it likes, then wait for answers, text or the close. */
export class RawConnection {
  private bytes = Buffer.alloc(0);
  private ended = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.bytes = Buffer.concat([this.bytes, data]);
      this.wake();
    });
    // A reset after the answer is one way a server closes; the test looks at what arrived.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
  }

  /** Connects to 127.0.0.1:`port`; rejects only when the connection itself fails. */
  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Sends bytes as given; resolves false instead of throwing when the server has cut the connection. */
  write(data: string | Uint8Array): Promise<boolean> {
    if (!this.writable) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(error == null)));
  }

  /** Everything received so far. */
  get received(): Buffer {
    return this.bytes;
  }

  /** Everything received so far, as latin1 text (interim 1xx responses included). */
  get text(): string {
    return this.bytes.toString('latin1');
  }

  /** Whether the connection has closed, by either side. */
  get closed(): boolean {
    return this.ended;
  }

  /** True while this side can still send: the server has neither closed nor reset the connection. */
  get writable(): boolean {
    return !this.ended && this.socket.writable && !this.socket.destroyed;
  }

  /** The complete final responses so far; throws on bytes that are not HTTP/1.1 responses. */
  answers(): RawAnswer[] {
    return parseResponses(this.bytes, this.ended).answers;
  }

  /** The bytes after the last complete response, as latin1 text: empty when nothing else arrived. */
  get leftover(): string {
    return this.bytes.subarray(parseResponses(this.bytes, this.ended).end).toString('latin1');
  }

  /** Waits until `count` final answers are complete or the connection closes (at most `ms`). */
  async waitForAnswers(count: number, ms = WAIT_MS): Promise<RawAnswer[]> {
    await this.until(() => this.ended || this.answers().length >= count, ms);
    return this.answers();
  }

  /** Waits until the received text contains `text` (at most `ms`); resolves whether it does. */
  async waitForText(text: string, ms = WAIT_MS): Promise<boolean> {
    await this.until(() => this.ended || this.text.includes(text), ms);
    return this.text.includes(text);
  }

  /** Waits until the connection closes (at most `ms`); resolves whether it did. */
  async waitForClose(ms = WAIT_MS): Promise<boolean> {
    await this.until(() => this.ended, ms);
    return this.ended;
  }

  /** Closes this side at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  private until(done: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = (): void => {
        let met: boolean;
        try {
          met = done();
        } catch {
          met = true; // unparseable bytes: stop waiting and let the test look at them
        }
        if (met) finish();
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(check);
      check();
    });
  }
}

/** What one exchange on a fresh connection brought back; the connection is closed by then. */
export interface Exchange {
  readonly answers: RawAnswer[];
  /** Whether the server had closed the connection when the wait ended. */
  readonly closed: boolean;
  readonly received: Buffer;
  readonly text: string;
}

/** Sends `data` on a new connection and collects what comes back: `count` answers or the close (at most `ms`). */
export function exchange(
  port: number,
  data: string | Uint8Array,
  { count = 1, ms = WAIT_MS }: { count?: number; ms?: number } = {},
): Promise<Exchange> {
  return exchangeWhile(port, data, (connection) => connection.waitForAnswers(count, ms));
}

/** Sends `data` on a new connection and collects what comes back until the server closes it (at most `ms`). */
export function exchangeUntilClose(port: number, data: string | Uint8Array, ms = WAIT_MS): Promise<Exchange> {
  return exchangeWhile(port, data, (connection) => connection.waitForClose(ms));
}

async function exchangeWhile(
  port: number,
  data: string | Uint8Array,
  wait: (connection: RawConnection) => Promise<unknown>,
): Promise<Exchange> {
  const connection = await RawConnection.open(port);
  try {
    await connection.write(data);
    await wait(connection);
    return {
      answers: connection.answers(),
      closed: connection.closed,
      received: connection.received,
      text: connection.text,
    };
  } finally {
    connection.destroy();
  }
}

/** Resolves whether a new TCP connection to 127.0.0.1:`port` is refused (bounded by the OS, never hangs). */
export function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
