// Shared by the server suites: servers that are always closed, and small request builders.
import { afterEach } from 'vitest';
import { type RawAnswer, parseResponses } from '../../../test/hardening/raw-http.js';
import {
  type PlantStoreServer,
  type PlantStoreServerOptions,
  startPlantStoreServer,
} from '../src/index.js';

/** The token the suites' servers accept unless a test says otherwise. */
export const TOKEN = 'server-test-token';

const running = new Set<PlantStoreServer>();
afterEach(async () => {
  await Promise.all([...running].map((server) => server.close()));
  running.clear();
});

/** A server on 127.0.0.1 and a free port, closed after the test. */
export async function serve(options: PlantStoreServerOptions = {}): Promise<PlantStoreServer> {
  const server = await startPlantStoreServer({ port: 0, tokens: [TOKEN], ...options });
  running.add(server);
  return server;
}

/** POST /plants with the suite's token and a JSON media type. */
export function createPlant(
  server: PlantStoreServer,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** The head of a raw POST /plants request (no body), for tests that frame the body themselves. */
export function postHead(lines: readonly string[], path = '/plants'): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${TOKEN}`,
    'Content-Type: application/json',
    ...lines,
  ].join('\r\n') + '\r\n\r\n';
}

/** A complete raw POST /plants request with a Content-Length. */
export function postRaw(body: string, lines: readonly string[] = []): string {
  return postHead([`Content-Length: ${Buffer.byteLength(body)}`, ...lines]) + body;
}

/** Resolves whether a new TCP connection to `port` is refused (bounded by the OS, never hangs). */
export async function connectionRefused(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A raw TCP client that writes exactly the bytes given and records what comes back, so framing the
 * fetch API would fix up reaches the server as written. Every wait is bounded and never rejects.
 */
export class RawConnection {
  private bytes = Buffer.alloc(0);
  private ended = false;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: import('node:net').Socket) {
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

  /** Connects to 127.0.0.1:`port`. */
  static async open(port: number): Promise<RawConnection> {
    const { connect } = await import('node:net');
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends bytes; resolves false when the server has cut the connection already. */
  write(data: string | Uint8Array): Promise<boolean> {
    if (!this.socket.writable) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(error == null)));
  }

  /** Everything received so far, as latin1 text. */
  get text(): string {
    return this.bytes.toString('latin1');
  }

  /** Whether the server has closed the connection. */
  get closed(): boolean {
    return this.ended;
  }

  /** The complete final responses so far (interim 1xx answers are left out). */
  answers(): RawAnswer[] {
    const withoutInterim = Buffer.from(this.text.replace(/HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n/g, ''), 'latin1');
    return parseResponses(withoutInterim, this.ended).answers;
  }

  /** Waits until `count` final answers are complete or the connection closes (at most `ms`). */
  async waitForAnswers(count: number, ms = 5_000): Promise<RawAnswer[]> {
    await this.until(() => this.ended || this.answers().length >= count, ms);
    return this.answers();
  }

  /** Waits until the received text contains `text` (at most `ms`); resolves whether it does. */
  async waitForText(text: string, ms = 5_000): Promise<boolean> {
    await this.until(() => this.ended || this.text.includes(text), ms);
    return this.text.includes(text);
  }

  /** Waits until the server closes the connection (at most `ms`); resolves whether it did. */
  async waitForClose(ms = 5_000): Promise<boolean> {
    await this.until(() => this.ended, ms);
    return this.ended;
  }

  /** Closes our side at once. */
  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  private until(done: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve();
      }, ms);
      this.waiters.add(check);
      check();
    });
  }
}

/** Sends `data` on a new connection, waits for the server to close it, and returns what came back. */
export async function exchangeUntilClose(
  port: number,
  data: string,
): Promise<{ answers: RawAnswer[]; closed: boolean; text: string }> {
  const connection = await RawConnection.open(port);
  await connection.write(data);
  const closed = await connection.waitForClose();
  const result = { answers: connection.answers(), closed, text: connection.text };
  connection.destroy();
  return result;
}
