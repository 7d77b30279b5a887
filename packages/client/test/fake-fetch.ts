// An injected fetch that answers from a script and records what reached the wire.
import { vi } from 'vitest';

export interface SentRequest {
  url: string;
  method: string | undefined;
  headers: Headers;
  body: string;
}

type Answer = Response | Error | ((init: RequestInit) => Promise<Response>);

/**
 * Answers with each of `answers` in turn (the last one repeats); `sent` lists every request, whether
 * fetch got a URL and an init (the client without middleware) or a Request (with middleware).
 */
export function fakeFetch(...answers: Answer[]) {
  const sent: SentRequest[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request = input instanceof Request ? input : undefined;
    const entry: SentRequest = {
      url: request?.url ?? String(input),
      method: request?.method ?? init.method,
      headers: new Headers(request?.headers ?? init.headers),
      body: request ? '' : String(init.body),
    };
    sent.push(entry);
    const answer = answers[Math.min(sent.length - 1, answers.length - 1)]!;
    if (request) entry.body = await request.clone().text();
    if (answer instanceof Error) throw answer;
    // A Request carries its signal as an init would.
    if (typeof answer === 'function') return answer(request ?? init);
    return answer.clone();
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, sent };
}

/** A JSON answer, with an `X-Request-Id` like the service's. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers },
  });
}

/** The spec's Error body with a given code. */
export function errorAnswer(status: number, error: number, message = 'it failed', headers?: Record<string, string>) {
  return json(status, { error, message }, headers);
}

/** A fetch that never answers until its signal aborts, then rejects with the signal's reason, as fetch does. */
export function hangingFetch() {
  return fakeFetch(
    (init) =>
      new Promise<Response>((_, reject) => {
        const signal = init.signal!;
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  );
}
