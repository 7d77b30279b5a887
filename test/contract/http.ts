// The contract table over real HTTP, for every transport that listens on a socket (the reference
// server, and the core served by Bun, Deno and workerd). Node only.
import { exchange } from '../support/raw-http.js';
import { bodyBytes, COMPARED_HEADERS, observe, STEP_TIMEOUT_MS, type Observed, type RawRequest } from './harness.js';
import { toRequest } from './reference.js';

/**
 * Sends `request` exactly as given on a new connection: fetch refuses a Content-Length that disagrees
 * with the body, and the cases that declare one are about that.
 */
async function sendOnSocket(port: number, request: RawRequest): Promise<Observed> {
  const head = [`${request.method} ${request.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'];
  for (const [name, value] of Object.entries(request.headers ?? {})) head.push(`${name}: ${value}`);
  const bytes = Buffer.concat([
    Buffer.from(`${head.join('\r\n')}\r\n\r\n`),
    bodyBytes(request.body) ?? new Uint8Array(),
  ]);
  const { answers, text } = await exchange(port, bytes, { ms: STEP_TIMEOUT_MS });
  const answer = answers[0];
  if (answer === undefined) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const headers = Object.fromEntries(COMPARED_HEADERS.map((name) => [name, answer.headers[name] ?? null]));
  return { status: answer.status, headers, body: answer.body };
}

/**
 * Sends one raw request to the service listening at `origin` (`http://127.0.0.1:<port>`): with fetch,
 * or on a raw socket when the request declares its own Content-Length.
 */
export async function sendOverHttp(origin: string, request: RawRequest): Promise<Observed> {
  const declaresLength = Object.keys(request.headers ?? {}).some((name) => name.toLowerCase() === 'content-length');
  if (declaresLength) return sendOnSocket(Number(new URL(origin).port), request);
  try {
    return observe(await fetch(toRequest(origin, request)));
  } catch (error) {
    // An answer given before a large body is all sent (413 by size) races the upload: a runtime that
    // closes its socket with the rest unread (workerd) resets the connection, and fetch can lose the
    // answer with it when the machine is busy. Sent once more, so that the race is not a failure;
    // an answer lost twice still is.
    if (!(error instanceof TypeError) || (bodyBytes(request.body)?.byteLength ?? 0) <= LARGE_BODY) throw error;
    return observe(await fetch(toRequest(origin, request)));
  }
}

/** Bodies above this size are the ones whose answer can race the upload (see sendOverHttp). */
const LARGE_BODY = 64 * 1024;
