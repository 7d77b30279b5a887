/** Where the proxy forwards to, and the latency it adds. */
export interface TcpProxyOptions {
  readonly target: { readonly host: string; readonly port: number };
  /** Milliseconds added to each chunk, each way (a round trip gains twice this). Default 0. */
  readonly delayMs?: number;
}

/** A running proxy on 127.0.0.1. */
export interface TcpProxy {
  /** The port it listens on. */
  readonly port: number;
  /** Changes the latency added each way, for bytes that arrive from now on. */
  setDelay(ms: number): void;
  /**
   * Cuts the path (`true`) or heals it (`false`): while cut, every byte is dropped both ways, and
   * neither a close nor a reset passes; connections stay open. Bytes dropped are not sent later.
   */
  blackhole(on: boolean): void;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on a free port of 127.0.0.1 forwarding to `target`. */
export function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy>;
