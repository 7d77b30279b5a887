// The node:http side of the reference server: the server with its time limits, the answers it gives on
// sockets the core never sees (a CONNECT, an unparsable request), listening, its URL, and the drain.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { PlantStore } from '@plant-store/core';
import type { ListenerParts } from './listener-parts.js';
import type { Logger } from './logger.js';
import { DEFAULT_LINGER, type ListenerState } from './request-listener.js';
import type { PlantStoreServerTimeouts } from './server-types.js';
import {
  answerForClientError,
  newRequestId,
  rawResponse,
  type TransportAnswer,
  type TransportAnswers,
} from './transport-errors.js';

/** Every time limit, each set. */
export type Timeouts = Required<PlantStoreServerTimeouts>;

const DEFAULT_TIMEOUTS: Timeouts = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownTimeout: 10_000,
  lingerTimeout: DEFAULT_LINGER.ms,
};

/** The time limits given over their defaults; a RangeError names one that is not a positive whole number. */
export function resolveTimeouts(given: PlantStoreServerTimeouts | undefined): Timeouts {
  const timeouts = { ...DEFAULT_TIMEOUTS };
  for (const [name, value] of Object.entries(given ?? {}) as [keyof Timeouts, number | undefined][]) {
    if (value !== undefined) timeouts[name] = value;
  }
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new RangeError(`timeouts.${name} must be a positive number of milliseconds`);
    }
  }
  return timeouts;
}

/** The API's node:http server over the listener, not listening yet. */
export function createNodeServer(
  parts: Pick<ListenerParts<PlantStore>, 'listener' | 'continueListener' | 'state'>,
  answers: TransportAnswers,
  timeouts: Timeouts,
  logger: Logger | undefined,
): Server {
  const server = createServer({
    // Node rejects a headers timeout above the request timeout.
    headersTimeout: Math.min(timeouts.headersTimeout, timeouts.requestTimeout),
    requestTimeout: timeouts.requestTimeout,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    // Node enforces the two timeouts above only when it sweeps its connections (every 30 s by
    // default), which would let a slow client hold a socket far longer than configured.
    connectionsCheckingInterval: Math.max(
      50,
      Math.min(1_000, Math.floor(Math.min(timeouts.headersTimeout, timeouts.requestTimeout) / 2)),
    ),
    // Checked in the listener instead, so the 400 carries the JSON Error body.
    requireHostHeader: false,
  });
  parts.state.onIdle = () => server.closeIdleConnections();
  server.on('request', parts.listener);
  server.on('checkContinue', parts.continueListener);
  // An Expect other than 100-continue is ignored and the request answered as usual (RFC 9110
  // §10.1.1 lets a server do that instead of a 417), which Node would otherwise send bare.
  server.on('checkExpectation', parts.listener);
  // A CONNECT names no path of this service: the core's rule for unknown paths, 404 with the JSON
  // Error body. Without a listener Node would cut the socket without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const requestId = newRequestId();
    logger?.warn('CONNECT refused', { requestId, event: 'connect', status: answers.connectRefused.status });
    answerOnSocket(socket, answers.connectRefused, requestId);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    onClientError(error, socket, answers, logger);
  });
  return server;
}

/** Listens on `port` and `host`; rejects with the error that stopped it (the port is in use, say). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** The base URL of a listening server on the interface it was given: `http://<host>:<port>`, an IPv6 host in brackets. */
export function baseUrl(server: Server, host: string): { readonly port: number; readonly url: string } {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { port, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };
}

/**
 * Stops accepting, lets the requests in flight finish (their answers carry `Connection: close`) for up
 * to `graceMs`, then cuts what is left.
 */
export async function drain(server: Server, state: ListenerState, graceMs: number): Promise<void> {
  state.closing = true;
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  // server.close() already drops idle sockets; these are the ones busy with a request, which
  // close themselves after their answer (it carries `Connection: close`).
  server.closeIdleConnections();
  // A request that never finishes must not hold the process forever.
  const grace = setTimeout(() => server.closeAllConnections(), graceMs);
  grace.unref();
  try {
    await stopped;
  } finally {
    clearTimeout(grace);
  }
}

function onClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  answers: TransportAnswers,
  logger: Logger | undefined,
): void {
  // Node's own rule (docs of 'clientError'): write only when the socket still can take an answer
  // and no response has started on it; otherwise the bytes would corrupt a response in progress.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  const answer = answerForClientError(answers, error.code);
  const requestId = newRequestId();
  logger?.warn('unparsable request', { requestId, event: 'client-error', code: error.code, status: answer.status });
  answerOnSocket(socket, answer, requestId);
}

/**
 * Writes one of the server's own answers straight to a socket Node handed over (after a parse
 * failure, or a CONNECT) and closes it: the framing is lost or never HTTP again, so whatever the
 * client still sends is not read.
 */
function answerOnSocket(socket: Socket, answer: TransportAnswer, requestId: string): void {
  socket.end(rawResponse(answer, requestId));
  socket.destroySoon();
}
