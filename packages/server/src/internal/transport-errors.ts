import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createErrorResponse, ErrorCode } from '@plant-store/core';

/**
 * An answer the server gives on its own, where the core never sees a request: the HTTP parser
 * failed, the client was too slow, or the socket broke. The service's rules ask for the spec's JSON
 * `Error` body even then, wherever Node lets the server choose.
 */
export interface TransportAnswer {
  readonly status: number;
  /** The Error code of its body, for the request's log line and metrics. */
  readonly errorCode: ErrorCode;
  /**
   * The core's headers of the answer (`content-type`, `cache-control: no-store`,
   * `x-content-type-options: nosniff`), without its `x-request-id`: each answer gets its own.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The spec's Error body, as JSON text. */
  readonly body: string;
}

/** Every answer the server gives on its own, built once when it starts. */
export interface TransportAnswers {
  /** The request could not be parsed as HTTP/1.1 (bad framing, invalid characters, bad chunking). */
  readonly badRequest: TransportAnswer;
  /** An HTTP/1.1 request without `Host` (RFC 9112 §3.2 requires a 400). */
  readonly missingHost: TransportAnswer;
  /** The headers were not (or the whole request was not) received within the server's timeouts. */
  readonly requestTimeout: TransportAnswer;
  /** The request line and headers are over Node's limit (`maxHeaderSize`, 16 KiB by default). */
  readonly headersTooLarge: TransportAnswer;
  /** The fallback when the core itself failed to answer (it catches its faults, so this is a bug). */
  readonly internalError: TransportAnswer;
  /** A CONNECT request: its target is a host, never a path of this service, so the core's 404. */
  readonly connectRefused: TransportAnswer;
}

/**
 * Builds the server's own answers with the core's `createErrorResponse`, so their statuses, the
 * pairing of code and status, and the wording of 40801 and 43101 have one source: the core. Done
 * once at start, so a parser failure costs no Response and no body read.
 */
export async function createTransportAnswers(basePath: string): Promise<TransportAnswers> {
  // A request that cannot be parsed has no readable body, so it is "not JSON" (40001). Timeouts and
  // oversized headers have codes of their own in the spec (40801, 43101, marked `transport`):
  // they are the only answers the core never gives, and the statuses (408, 431) are the precise
  // ones so that proxies and HTTP clients treat them correctly.
  const [badRequest, missingHost, requestTimeout, headersTooLarge, internalError, connectRefused] = await Promise.all([
    answer(ErrorCode.INVALID_JSON, 'the request could not be parsed as HTTP/1.1'),
    answer(ErrorCode.INVALID_JSON, 'the request could not be parsed: HTTP/1.1 requires a Host header'),
    answer(ErrorCode.REQUEST_TIMEOUT),
    answer(ErrorCode.HEADERS_TOO_LARGE),
    answer(ErrorCode.INTERNAL_ERROR),
    // The core's own 40401 wording, which names where plants are created.
    answer(ErrorCode.NOT_FOUND, undefined, basePath),
  ]);
  return { badRequest, missingHost, requestTimeout, headersTooLarge, internalError, connectRefused };
}

async function answer(code: ErrorCode, message?: string, basePath?: string): Promise<TransportAnswer> {
  const response = createErrorResponse(code, message, { basePath });
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (name !== 'x-request-id') headers[name] = value;
  return { status: response.status, errorCode: code, headers, body: await response.text() };
}

/** Which answer a `clientError` gets, by Node's error code. */
export function answerForClientError(answers: TransportAnswers, code: string | undefined): TransportAnswer {
  if (code === 'HPE_HEADER_OVERFLOW') return answers.headersTooLarge;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADERS_TIMEOUT') return answers.requestTimeout;
  return answers.badRequest;
}

/** A new request id for answers the core never produced. */
export function newRequestId(): string {
  return randomUUID();
}

/**
 * A complete HTTP/1.1 response as bytes, for writing straight to a socket (`clientError` has no
 * `ServerResponse`). Always `Connection: close`: after a parse failure the framing is unknown.
 */
export function rawResponse(answer: TransportAnswer, requestId: string): string {
  let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(answerHeaders(answer, requestId))) head += `${name}: ${value}\r\n`;
  return `${head}\r\n${answer.body}`;
}

/**
 * Every header of a server's own answer: the core's, its length, `requestId`, and always
 * `Connection: close` (after a parse failure the framing is unknown; the other answers end the
 * connection too).
 */
export function answerHeaders(answer: TransportAnswer, requestId: string): Record<string, string | number> {
  return {
    ...answer.headers,
    'content-length': Buffer.byteLength(answer.body),
    'x-request-id': requestId,
    connection: 'close',
  };
}
