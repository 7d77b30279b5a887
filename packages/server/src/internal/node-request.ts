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
 * Why a body read ended without a body: something mounted before the listener (a body parser such as
 * `express.json()`) read the stream and kept no bytes. A fault of the app's setup, so the message
 * names the fix; the listener answers it as a 500 with this message.
 */
export class BodyAlreadyReadError extends Error {
  override readonly name = 'BodyAlreadyReadError';
  constructor() {
    super(
      'the request body was read before the Plant Store listener (by a body parser such as express.json()) ' +
        'and its bytes were not kept: mount the listener before any body parser, or keep the raw bytes ' +
        "(express.raw({ type: '*/*' }) on its path; for Fastify, register @plant-store/server/fastify)",
    );
  }
}

/** Mounts written the Express way put these on the request; body parsers that keep the bytes put `body`/`rawBody`. */
interface MountedRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  rawBody?: unknown;
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
  /** Set when the body had been read before the listener and not kept: the answer names the fix. */
  bodyAlreadyRead = false;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #expectsContinue: boolean;
  readonly #trustProxy: number;

  constructor(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean, basePath: string, trustProxy = 0) {
    this.#req = req;
    this.#res = res;
    this.#expectsContinue = expectsContinue;
    this.#trustProxy = trustProxy;
    this.method = req.method ?? 'GET';
    this.path = pathOf(mountedUrl(req as MountedRequest, basePath));
  }

  header(name: string): string | null {
    const value = this.#req.headers[name];
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
    const peer = this.#req.socket.remoteAddress;
    if (this.#trustProxy === 0) return peer;
    const forwarded = this.header('x-forwarded-for');
    if (forwarded === null) return peer;
    const hops = forwarded
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    if (peer !== undefined) hops.push(peer);
    return hops[Math.max(0, hops.length - 1 - this.#trustProxy)];
  }

  readBody(limit: number): Promise<Uint8Array | null> {
    const req = this.#req;
    // RFC 9110 §10.1.1: "100 Continue" only once the core has decided it wants the body, so a
    // client that would be refused (401, 413 by Content-Length, 415) never sends it.
    if (this.#expectsContinue && !this.#res.headersSent) this.#res.writeContinue();
    // Read by a framework before the listener: its kept bytes are the body, or nothing is left.
    if (req.readableDidRead || req.readableEnded) return this.#keptBody(limit);
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

  /**
   * The body a framework read and kept on the request: bytes (`express.raw()`, a Buffer `rawBody`) or
   * text (`express.text()`), which JSON was before it was decoded, so ids stay exact.
   */
  #keptBody(limit: number): Promise<Uint8Array | null> {
    const req = this.#req as MountedRequest;
    for (const kept of [req.rawBody, req.body]) {
      const bytes =
        typeof kept === 'string' ? Buffer.from(kept, 'utf8') : kept instanceof Uint8Array ? kept : undefined;
      if (bytes !== undefined) return Promise.resolve(bytes.byteLength > limit ? null : bytes);
    }
    this.bodyAlreadyRead = true;
    return Promise.reject(new BodyAlreadyReadError());
  }
}

/**
 * The request target the core routes: under a mount (Express's `app.use('/prefix', listener)` strips
 * the prefix from `url` and keeps the full target in `originalUrl`), the path under the mount, so the
 * listener serves wherever it is mounted; a `basePath` that the full target starts with is matched
 * against the full target, so a `basePath` repeating the mount path serves there too.
 */
function mountedUrl(req: MountedRequest, basePath: string): string {
  const url = req.url ?? '/';
  const original = req.originalUrl;
  if (original === undefined || original === url || basePath === '') return url;
  return original.startsWith(basePath) && (original.length === basePath.length || isPathEnd(original, basePath.length))
    ? original
    : url;
}

/** Whether the target's prefix ends at `at` (a `/`, a `?` or the end), so `/api` never matches `/apix`. */
function isPathEnd(target: string, at: number): boolean {
  const c = target.charCodeAt(at);
  return c === 47 /* "/" */ || c === 63 /* "?" */;
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
