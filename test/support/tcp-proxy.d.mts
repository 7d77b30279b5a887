/** Where the proxy forwards to, and the latency it adds. */
export interface TcpProxyOptions {
  readonly target: { readonly host: string; readonly port: number };
  /** Milliseconds added to each chunk, each way (a round trip gains twice this). Default 0. */
  readonly delayMs?: number;
}

/** Which way a chunk goes through the proxy: from the client toward the server, or back. */
export type ChunkDirection = 'to-server' | 'to-client';

/** What the proxy does with a chunk: forwards it, or drops it and resets its connection, both sides. */
export type ChunkVerdict = 'pass' | 'reset';

/**
 * Sees every chunk as it arrives at the proxy, before any delay, and says what becomes of it. Chunks
 * are what TCP delivered, not messages: a hook that looks for a message's bytes relies on them coming
 * in one chunk, as a small message written at once does on loopback.
 */
export type ChunkHook = (chunk: Buffer, direction: ChunkDirection) => ChunkVerdict | undefined;

/** A running proxy on 127.0.0.1. */
export interface TcpProxy {
  /** The port it listens on. */
  readonly port: number;
  /** Changes the latency added each way, for bytes that arrive from now on. */
  setDelay(ms: number): void;
  /**
   * Cuts the path (`true`) or heals it (`false`): while cut, every byte is dropped both ways, and
   * neither a close nor a reset passes; connections stay open. Bytes dropped are not sent later. A heal
   * resets (RST) each connection whose other side ended (closed or errored) during the cut, as a network
   * does once the live side's next segment reaches a host that no longer has the connection; the
   * others pass bytes again.
   */
  blackhole(on: boolean): void;
  /**
   * Has `hook` judge every chunk from now on, both ways (`undefined`: none, every chunk passes). On
   * `'reset'`, the chunk is dropped and both TCP connections of that client are reset (RST): a chunk
   * toward the server never reaches it (a request lost with the path), a chunk toward the client never
   * reaches it though the server sent it (an answer lost after the server acted). A path blackholed
   * drops chunks before any hook sees them.
   */
  intercept(hook: ChunkHook | undefined): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on a free port of 127.0.0.1 forwarding to `target`. */
export function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy>;
