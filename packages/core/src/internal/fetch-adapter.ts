// The web-standard edge of the application: Request → PlantStoreRequest, PlantStoreResponse → Response.
import type { PlantStoreRequest, PlantStoreResponse } from '../app-types.js';

/** A transport's view of a web `Request`. */
export function fromWebRequest(request: Request, clientAddress?: string): PlantStoreRequest {
  const url = request.url;
  // The path without query or fragment; percent-encoding stays as sent (paths compare exactly).
  const path = new URL(url).pathname;
  const headers = request.headers;
  return {
    method: request.method,
    path,
    header: (name) => headers.get(name),
    readBody: (limit) => readLimited(request.body, limit),
    clientAddress,
  };
}

/**
 * Reads a body stream whole, counting bytes as they arrive and cancelling the stream as soon as it
 * passes `limit`, so an endless or oversized upload is never buffered (the service's rules: 413 while streaming).
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | null> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Not awaited: MSW clones every request before its resolver runs, and cancelling one branch of a
      // tee'd body settles only once the other branch is read or cancelled too, which never happens
      // there, so awaiting it would hang every over-limit body instead of answering 413.
      void reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** A web `Response` for an answer. A 204 carries no body (Fetch forbids one). */
export function toWebResponse(answer: PlantStoreResponse): Response {
  const body = answer.status === 204 || answer.body === '' ? null : answer.body;
  return new Response(body, { status: answer.status, headers: answer.headers });
}
