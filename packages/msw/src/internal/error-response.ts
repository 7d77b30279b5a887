import { errorStatus, type ErrorBody, type ErrorCode } from '@plant-store/core';

// DECISIONS.md: a caller-chosen X-Request-Id is echoed only when it is sane; anything else is replaced.
const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/;

/** The request id the real service would answer with: the caller's when sane, otherwise a new one. */
export function requestIdFor(request: Request): string {
  const sent = request.headers.get('x-request-id');
  return sent !== null && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}

/**
 * An Error answer shaped like the core's: the status that goes with `code`, the spec's Error body,
 * and the headers a client branches on (RFC 6750 challenge for 401s, `Allow` for 405s).
 */
export function errorResponse(request: Request, code: ErrorCode, message: string): Response {
  const body: ErrorBody = { error: code, message };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-request-id': requestIdFor(request),
  };
  if (code === 40101) headers['www-authenticate'] = 'Bearer realm="plant-store"';
  if (code === 40102) headers['www-authenticate'] = 'Bearer realm="plant-store", error="invalid_token"';
  if (code === 40501) headers['allow'] = 'POST';
  return new Response(JSON.stringify(body), { status: errorStatus[code], headers });
}
