import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@plant-store/core';

/**
 * An answer the server gives on its own, where the core never sees a request: the HTTP parser
 * failed, the client was too slow, or the socket broke. DECISIONS.md asks for the spec's JSON
 * `Error` body even then, wherever Node lets the server choose.
 */
export interface TransportAnswer {
  readonly status: number;
  readonly error: number;
  readonly message: string;
}

// A request that cannot be parsed has no readable body, so it is "not JSON" (40001). Timeouts and
// oversized headers have codes of their own in openapi.yaml (40801, 43101, marked `transport`):
// they are the only answers the core never gives, and the statuses (408, 431) are the precise
// ones so that proxies and HTTP clients treat them correctly.
/** The request could not be parsed as HTTP/1.1 (bad framing, invalid characters, bad chunking). */
export const BAD_REQUEST: TransportAnswer = {
  status: 400,
  error: ErrorCode.INVALID_JSON,
  message: 'the request could not be parsed as HTTP/1.1',
};
/** An HTTP/1.1 request without `Host` (RFC 9112 §3.2 requires a 400). */
export const MISSING_HOST: TransportAnswer = {
  status: 400,
  error: ErrorCode.INVALID_JSON,
  message: 'the request could not be parsed: HTTP/1.1 requires a Host header',
};
/** The headers were not (or the whole request was not) received within the server's timeouts. */
export const REQUEST_TIMEOUT: TransportAnswer = {
  status: 408,
  error: ErrorCode.REQUEST_TIMEOUT,
  message: 'the request was not received in time',
};
/** The request line and headers are over Node's limit (`maxHeaderSize`, 16 KiB by default). */
export const HEADERS_TOO_LARGE: TransportAnswer = {
  status: 431,
  error: ErrorCode.HEADERS_TOO_LARGE,
  message: 'the request headers are over the size limit',
};
/** The fallback when the core itself failed to answer (it catches its faults, so this is a bug). */
export const INTERNAL_ERROR: TransportAnswer = {
  status: 500,
  error: ErrorCode.INTERNAL_ERROR,
  message: 'an unexpected error occurred',
};

/** Which answer a `clientError` gets, by Node's error code. */
export function answerForClientError(code: string | undefined): TransportAnswer {
  if (code === 'HPE_HEADER_OVERFLOW') return HEADERS_TOO_LARGE;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'HPE_HEADERS_TIMEOUT') return REQUEST_TIMEOUT;
  return BAD_REQUEST;
}

/** The JSON body of an answer. */
export function answerBody(answer: TransportAnswer): string {
  return JSON.stringify({ error: answer.error, message: answer.message });
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
  const body = answerBody(answer);
  return (
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
    'content-type: application/json\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    'connection: close\r\n' +
    '\r\n' +
    body
  );
}
