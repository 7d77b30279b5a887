// A TCP proxy on 127.0.0.1 that stands for the network between a client and a server (the store and
// PostgreSQL): it can add latency each way, blackhole the path (every byte dropped both ways, no
// reset, connections left open), as a cut cable or a firewall that drops packets would, heal it as such
// a network heals (a connection one side ended meanwhile is reset on the other), and reset one
// connection at a chosen chunk, as a path that breaks at that moment would (a request that never
// arrives, or an answer that never comes back). Plain ESM so the tests and the bench can both import
// it; types in tcp-proxy.d.mts.
import { connect, createServer } from 'node:net';

/**
 * Starts a proxy on a free port of 127.0.0.1 forwarding to `target`.
 * @param {import('./tcp-proxy.d.mts').TcpProxyOptions} options
 * @returns {Promise<import('./tcp-proxy.d.mts').TcpProxy>}
 * @example
 * const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: 5432 }, delayMs: 5 });
 * // connect to 127.0.0.1:proxy.port; proxy.blackhole(true) cuts the path, proxy.blackhole(false) heals it,
 * // resetting each connection whose other side ended during the cut
 * // the first answer that carries "COMMIT" never reaches the client, whose connection is reset:
 * proxy.intercept((chunk, direction) => (direction === 'to-client' && chunk.includes('COMMIT') ? 'reset' : 'pass'));
 * await proxy.close();
 */
export async function startTcpProxy({ target, delayMs = 0 }) {
  checkDelay(delayMs);
  let delay = delayMs;
  let holed = false;
  /** @type {import('./tcp-proxy.d.mts').ChunkHook | undefined} */
  let hook;
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  /**
   * The sockets left open on one side of a connection whose other side ended (closed or errored) while
   * the path was cut: the heal resets them.
   * @type {Set<import('node:net').Socket>}
   */
  const orphans = new Set();

  /**
   * Copies `from` to `to`, each chunk `delay` ms later, in order; drops what arrives while holed. A
   * chunk the hook says to reset on is dropped, and `reset` ends both sides of the connection.
   */
  const pipe = (from, to, direction, reset) => {
    /** @type {{ chunk: Buffer, due: number }[]} */
    const queue = [];
    let timer;
    let lastDue = 0;
    const drain = () => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && queue[0].due <= now) {
        const { chunk } = queue.shift();
        // Bytes already on their way when the path was cut are lost with it.
        if (!holed && !to.destroyed && !to.write(chunk)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
      }
      if (queue.length > 0) timer = setTimeout(drain, queue[0].due - now);
    };
    from.on('data', (chunk) => {
      if (holed) return;
      if (hook?.(chunk, direction) === 'reset') {
        reset();
        return;
      }
      if (delay === 0 && queue.length === 0) {
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
        return;
      }
      // Never before a chunk that came earlier, even when the delay has just been lowered.
      lastDue = Math.max(Date.now() + delay, lastDue);
      queue.push({ chunk, due: lastDue });
      timer ??= setTimeout(drain, lastDue - Date.now());
    });
    from.on('end', () => {
      // A close that comes while the path is cut is lost too: the other side keeps waiting.
      if (holed) return;
      const finish = () => (queue.length === 0 ? to.end() : setTimeout(finish, queue.at(-1).due - Date.now() + 1));
      finish();
    });
    from.on('close', () => clearTimeout(timer));
  };

  const server = createServer({ pauseOnConnect: false }, (client) => {
    const upstream = connect({ host: target.host, port: target.port });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.setNoDelay(true);
    }
    // One side failing ends the other as a reset would, unless the path is cut: then nothing passes, and
    // the other side is left on a connection that is gone until the path heals.
    const ended = (other) => {
      if (!holed) other.destroy();
      else if (!other.destroyed) orphans.add(other);
    };
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ]) {
      socket.on('error', () => ended(other));
      socket.on('close', () => {
        orphans.delete(socket);
        ended(other);
      });
    }
    // RST both ways, as a path that breaks does to a connection: neither side gets another byte.
    const reset = () => {
      for (const socket of [client, upstream]) if (!socket.destroyed) socket.resetAndDestroy();
    };
    pipe(client, upstream, 'to-server', reset);
    pipe(upstream, client, 'to-client', reset);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(undefined);
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP port');

  return {
    port: address.port,
    setDelay(ms) {
      checkDelay(ms);
      delay = ms;
    },
    blackhole(on) {
      holed = on;
      if (on) return;
      // On a network, the first segment the live side sends after the heal (a retransmission of what the
      // cut dropped, a keepalive, its next message) reaches a host with no such connection, which answers
      // with a reset: the proxy resets at once, as if that segment were sent as the path came back.
      for (const socket of orphans) if (!socket.destroyed) socket.resetAndDestroy();
      orphans.clear();
    },
    intercept(next) {
      hook = next;
    },
    close() {
      orphans.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

function checkDelay(ms) {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`delayMs must be 0 or more milliseconds; got ${ms}`);
}
