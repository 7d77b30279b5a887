// Every refused upload is read: an answer that comes before the body (401, 415, 413 by Content-Length
// or while streaming) must reach a client that is still sending, so the server reads and drops the rest
// for a bounded time and number of bytes (a lingering close) instead of resetting the connection. And
// a slow or endless upload is still cut.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { serve, TOKEN } from './helpers.js';

const MiB = 1024 * 1024;
const UPLOADS = 200;

/** Headers of an upload refused with `status` before its body is read. */
const refusedBy: Record<number, Record<string, string>> = {
  413: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  401: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
  415: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
};

/** Sends `count` uploads one after another; counts the answers read with `status`, and what else came. */
async function uploads(
  url: string,
  status: number,
  count: number,
  body: () => Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>,
): Promise<{ read: number; other: Record<string, number> }> {
  let read = 0;
  const other: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    try {
      const res = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: refusedBy[status],
        body: body(),
        duplex: 'half',
      } as RequestInit);
      const answer = (await res.json()) as { error?: number };
      if (res.status === status && Math.floor((answer.error ?? 0) / 100) === status) read++;
      else other[`status ${res.status}`] = (other[`status ${res.status}`] ?? 0) + 1;
    } catch (error) {
      const why = String((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      other[why] = (other[why] ?? 0) + 1;
    }
  }
  return { read, other };
}

/** 2 MiB in 64 KiB chunks, each after a timer tick: a client on a link slower than loopback. */
function pacedBody(): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent === 2 * MiB) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, 1));
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

const twoMiB = new Uint8Array(2 * MiB).fill(0x20);

describe('uploads refused before their body is read', () => {
  for (const status of [413, 401, 415]) {
    it(`lets each of ${UPLOADS} fetch uploads of 2 MiB read its ${status}`, async () => {
      const server = await serve();
      const result = await uploads(server.url, status, UPLOADS, () => twoMiB);
      console.info(`${status}, 2 MiB bodies: ${result.read} of ${UPLOADS} read the answer`, result.other);
      expect(result).toEqual({ read: UPLOADS, other: {} });
    }, 120_000);

    it(`lets each of ${UPLOADS} paced 2 MiB stream uploads read its ${status}`, async () => {
      const server = await serve();
      const result = await uploads(server.url, status, UPLOADS, pacedBody);
      console.info(`${status}, paced 2 MiB streams: ${result.read} of ${UPLOADS} read the answer`, result.other);
      expect(result).toEqual({ read: UPLOADS, other: {} });
    }, 180_000);
  }
});

/** A raw upload: the head of a POST with a wrong token and a large Content-Length, then body bytes as the test writes them. */
function rawUpload(port: number, contentLength: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // Half-open allowed, as an HTTP client that keeps sending its body after the server's FIN.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(
        `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n`,
      );
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves once the server's answer has arrived on `socket` (its text so far). */
function answerOn(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (data: Buffer) => {
      text += data.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
  });
}

/** How the socket ended: `'reset'` for an error (ECONNRESET, EPIPE), `'closed'` for a clean close. */
function ending(socket: Socket): Promise<'reset' | 'closed'> {
  return new Promise((resolve) => {
    socket.once('error', () => resolve('reset'));
    socket.once('close', (hadError) => resolve(hadError ? 'reset' : 'closed'));
    socket.resume();
  });
}

describe('the lingering close', () => {
  it('keeps reading after the answer, so a client still sending after it is not reset', async () => {
    const server = await serve();
    const socket = await rawUpload(server.port, MiB);
    const head = await answerOn(socket);
    expect(head).toMatch(/^HTTP\/1\.1 401 /);
    expect(head.toLowerCase()).toContain('connection: close');
    const end = ending(socket);
    // The rest of the body, in pieces after the answer, as a client that had not yet looked would send it.
    for (let i = 0; i < 16; i++) {
      socket.write(Buffer.alloc(64 * 1024, 0x20));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    socket.end();
    expect(await end).toBe('closed');
  });

  it('cuts an upload that goes on sending slowly after the answer', async () => {
    const server = await serve({ timeouts: { lingerTimeout: 500 } });
    const socket = await rawUpload(server.port, 1024 * MiB);
    await answerOn(socket);
    const end = ending(socket);
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(Buffer.alloc(1024, 0x20));
    }, 20);
    try {
      // Never ends by itself: only the server's bound closes it (the test's timeout is the hang guard).
      expect(['closed', 'reset']).toContain(await end);
    } finally {
      clearInterval(drip);
    }
  });

  it('cuts an upload that sends without end after the answer, by bytes, before its time is up', async () => {
    // A minute of lingering, longer than this test may take: only the byte bound can close the socket.
    const server = await serve({ timeouts: { lingerTimeout: 60_000 } });
    const socket = await rawUpload(server.port, 1024 * MiB);
    await answerOn(socket);
    const end = ending(socket);
    const block = Buffer.alloc(256 * 1024, 0x20);
    let written = 0;
    const pump = () => {
      while (!socket.destroyed && written < 1024 * MiB) {
        written += block.length;
        if (!socket.write(block)) return socket.once('drain', pump);
      }
    };
    pump();
    expect(['closed', 'reset']).toContain(await end);
    // The server stopped reading after its 4 MiB; what the client wrote beyond that sat in buffers.
    expect(written).toBeLessThan(1024 * MiB);
  }, 20_000);
});
