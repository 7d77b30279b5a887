import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantStoreRequest } from '@plant-store/core';

const EMPTY = new Uint8Array(0);

/** Why a body read ended without a body: the client went away first. Not a server fault. */
export class ClientClosedError extends Error {
  override readonly name = 'ClientClosedError';
  constructor() {
    super('the client closed the connection before the request body was complete');
  }
}

/**
 * The core's view of one node:http request. A class rather than an object of closures so that the
 * per-request cost is one small allocation: this is the hot path the benchmark measures.
 */
export class NodeRequest implements PlantStoreRequest {
  readonly method: string;
  readonly path: string;
  /** Set once the body passed the limit: the connection must not be reused (the rest is unread). */
  overflowed = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly expectsContinue: boolean,
    private readonly trustProxy = 0,
  ) {
    this.method = req.method ?? 'GET';
    // Express strips the mount path from `url` and keeps the full one in `originalUrl`.
    this.path = pathOf((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/');
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    // Node already joins most repeated headers; the few it keeps as arrays are joined the same way.
    return typeof value === 'string' ? value : value.join(', ');
  }

  /**
   * The client's address: the socket's peer, or, behind `trustProxy` proxies, the `X-Forwarded-For`
   * entry that many places from the right (each proxy appends the address it was called from; what is
   * further left, the client wrote itself).
   */
  get clientAddress(): string | undefined {
    const peer = this.req.socket.remoteAddress;
    if (this.trustProxy === 0) return peer;
    const forwarded = this.header('x-forwarded-for');
    if (forwarded === null) return peer;
    const hops = forwarded
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    if (peer !== undefined) hops.push(peer);
    return hops[Math.max(0, hops.length - 1 - this.trustProxy)];
  }

  readBody(limit: number): Promise<Uint8Array | null> {
    const req = this.req;
    // RFC 9110 §10.1.1: "100 Continue" only once the core has decided it wants the body, so a
    // client that would be refused (401, 413 by Content-Length, 415) never sends it.
    if (this.expectsContinue && !this.res.headersSent) this.res.writeContinue();
    return new Promise<Uint8Array | null>((resolve, reject) => {
      // Gone before the core asked: no 'close' is coming any more, so waiting would hang.
      if (req.destroyed) {
        reject(new ClientClosedError());
        return;
      }
      let first: Buffer | undefined;
      let chunks: Buffer[] | undefined;
      let size = 0;
      let settled = false;
      const cleanup = (): void => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('close', onFail);
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > limit) {
          // Stop reading: buffering (or even draining) the rest would let a client stream forever.
          // The response goes out with `Connection: close` and the socket is closed after it.
          cleanup();
          req.pause();
          this.overflowed = true;
          resolve(null);
          return;
        }
        if (first === undefined) first = chunk;
        else if (chunks === undefined) chunks = [first, chunk];
        else chunks.push(chunk);
      };
      // After 'end' nothing but 'close' can come, and onFail ignores it: the listeners are left to
      // go with the request instead of being taken off one by one. With no 'error' listener either
      // (an IncomingMessage emits 'error' only to listeners it has; a destroyed one always emits
      // 'close'), a create adds one listener fewer and takes none off, which is measurable on the
      // hot path of the memory store's synchronous insert.
      const onEnd = (): void => {
        settled = true;
        // One chunk (the common case for small JSON bodies) is returned as is: no copy.
        resolve(chunks !== undefined ? Buffer.concat(chunks, size) : (first ?? EMPTY));
      };
      const onFail = (): void => {
        if (settled) return;
        cleanup();
        reject(new ClientClosedError());
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('close', onFail);
    });
  }
}

/** The path of a request target, without the query (which may carry secrets and is not routed). */
export function pathOf(url: string): string {
  if (url.charCodeAt(0) === 47 /* "/" */) {
    const q = url.indexOf('?');
    return q === -1 ? url : url.slice(0, q);
  }
  // Absolute-form targets (RFC 9112 §3.2.2) come from proxies; asterisk-form (`OPTIONS *`) and
  // anything unparsable stay as they are and the core answers 404.
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
