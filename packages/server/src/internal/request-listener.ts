import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { PlantStoreApp, PlantStoreResponse } from '@plant-store/core';
import { ErrorCode } from '@plant-store/core';
import { BodyAlreadyReadError, NodeRequest, pathOf } from './node-request.js';
import { describeError, type Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { DEFAULT_TRUST_PROXY } from './option-checks.js';
import { answerHeaders, type TransportAnswer, type TransportAnswers, newRequestId } from './transport-errors.js';

/** What the listener shares with the server that owns it. */
export interface ListenerState {
  /** Set by `close()`: answers from now on carry `Connection: close`. */
  closing: boolean;
  /** Requests whose answer has not been written yet; `close()` waits for them. */
  inFlight: number;
  /** Called when `inFlight` drops, so a closing server can let go of idle sockets at once. */
  onIdle: () => void;
  readonly logger: Logger | undefined;
  /** Request counts and durations, when the server exposes metrics. */
  readonly metrics: Metrics | undefined;
  /** The answers the server gives without the core (built once, asynchronously, at creation). */
  readonly answers: Promise<TransportAnswers>;
  /** Proxies trusted to add to `X-Forwarded-For`. Default {@link DEFAULT_TRUST_PROXY}: the socket's peer is the client. */
  readonly trustProxy?: number;
  /** How long, and how many bytes, a refused upload is still read after its answer. Default {@link DEFAULT_LINGER}. */
  linger?: LingerLimits;
}

/** The bounds of a lingering close. */
export interface LingerLimits {
  readonly ms: number;
  readonly bytes: number;
}

/**
 * 5 s and 4 MiB: enough for a client on a slow link to finish a few-MiB upload it had started and read
 * the answer, too little for a client to hold a socket or make the server read much.
 */
export const DEFAULT_LINGER: LingerLimits = { ms: 5_000, bytes: 4 * 1024 * 1024 };

/**
 * The node:http `request` handler (and, with `expectsContinue`, the `checkContinue` handler): it
 * only translates between `IncomingMessage`/`ServerResponse` and `app.handle`; every rule of the
 * service is the core's.
 */
export function createRequestListener(
  app: Pick<PlantStoreApp, 'handle' | 'basePath'>,
  state: ListenerState,
  expectsContinue: boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = state.logger === undefined && state.metrics === undefined ? 0 : performance.now();
    state.inFlight++;
    // RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request without Host. Node would send
    // an empty 400 itself; doing it here keeps the JSON Error body every failure promises.
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
      void state.answers.then((answers) => sendAnswer(state, req, res, answers.missingHost, started));
      return;
    }
    const request = new NodeRequest(req, res, expectsContinue, app.basePath, state.trustProxy ?? DEFAULT_TRUST_PROXY);
    app.handle(request).then(
      (response) => send(state, req, res, request, response, started),
      (error: unknown) => {
        // The core turns its faults into 500s itself; reaching this is a bug, still never a hang.
        // The 500 says its request id identifies the fault in the log, so the log line names it.
        const requestId = newRequestId();
        state.logger?.error('unhandled fault', { requestId, event: 'unhandled', error: describeError(error) });
        void state.answers.then((answers) => sendAnswer(state, req, res, answers.internalError, started, requestId));
      },
    );
  };
}

/** The spec's Error body for a request whose body a framework read first. */
const BODY_ALREADY_READ = JSON.stringify({
  error: ErrorCode.INTERNAL_ERROR,
  message: new BodyAlreadyReadError().message,
});

function send(
  state: ListenerState,
  req: IncomingMessage,
  res: ServerResponse,
  request: NodeRequest,
  response: PlantStoreResponse,
  started: number,
): void {
  const requestId = response.headers['x-request-id'];
  if (res.destroyed) {
    // The client left (or a timeout cut it off and was answered already); nothing to write.
    finish(state, req, request.path, undefined, undefined, requestId, started, response.trace);
    return;
  }
  // A copy, because the core may share one headers object between answers. Object.assign, not a
  // spread: on Node 20 the spread of these objects takes a slow path (bench/README.md).
  const headers: OutgoingHttpHeaders = Object.assign({}, response.headers);
  // The core's 500 says nothing of its cause; this one is the app's setup, so the answer names the fix.
  const body = request.bodyAlreadyRead && response.status === 500 ? BODY_ALREADY_READ : response.body;
  // RFC 9110 §8.6: no Content-Length on a 204. Elsewhere it is set so Node never picks chunked.
  if (response.status !== 204 && headers['content-length'] === undefined) {
    headers['content-length'] = Buffer.byteLength(body);
  }
  // An unread or partly read body (refused before reading, or over the limit) must not be
  // drained on a kept-alive socket: that is how a client would stream forever. Closing also
  // makes a shutting-down server's sockets go away once their last answer is out.
  if (state.closing || request.overflowed || !req.complete) headers['connection'] = 'close';
  if (!req.complete) lingerAfterAnswer(req, state.linger ?? DEFAULT_LINGER);
  res.writeHead(response.status, headers);
  res.end(body);
  finish(state, req, request.path, response.status, response.errorCode, requestId, started, response.trace);
}

/**
 * A lingering close (RFC 9112 §9.6): the answer came before the body was read (401, 415, 413 by
 * Content-Length or while streaming), and closing the socket with unread bytes in it makes the kernel
 * send a reset that can destroy the answer before the client reads it, so the client sees "fetch
 * failed" and retries as if the server were down. After the answer the server half-closes, reads and
 * drops what the client still sends, and closes once the client does, or after `limits.ms`, or past
 * `limits.bytes`: a slow or endless upload is still cut.
 */
function lingerAfterAnswer(req: IncomingMessage, limits: LingerLimits): void {
  const socket = req.socket;
  let read = 0;
  const timer = setTimeout(() => socket.destroy(), limits.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > limits.bytes) socket.destroy();
  });
  req.resume();
  // Node ends an answered `Connection: close` socket with destroySoon(), which closes it at once once
  // the answer is written; ending only the writing side is what leaves the client time to finish.
  socket.destroySoon = function (this: typeof socket) {
    if (this.writable) this.end();
  };
}

function sendAnswer(
  state: ListenerState,
  req: IncomingMessage,
  res: ServerResponse,
  answer: TransportAnswer,
  started: number,
  requestId = newRequestId(),
): void {
  if (!res.destroyed && !res.headersSent) {
    res.writeHead(answer.status, answerHeaders(answer, requestId));
    res.end(answer.body);
  }
  finish(state, req, pathOf(req.url ?? '/'), answer.status, answer.errorCode, requestId, started);
}

function finish(
  state: ListenerState,
  req: IncomingMessage,
  path: string,
  status: number | undefined,
  errorCode: ErrorCode | undefined,
  requestId: string | undefined,
  started: number,
  trace?: PlantStoreResponse['trace'],
): void {
  state.inFlight--;
  if (started !== 0) {
    const ms = performance.now() - started;
    state.metrics?.observeRequest(status, errorCode, ms / 1000);
    // Only these fields: never a header value (the Authorization header), a query or a body.
    // No status: the answer was never written because the client had gone.
    state.logger?.request(requestId, req.method, path, status ?? 'aborted', ms, errorCode, trace);
  }
  if (state.closing && state.inFlight === 0) state.onIdle();
}
