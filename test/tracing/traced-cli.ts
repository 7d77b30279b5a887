// What the tracing suites share: plant-store-server with `--otel` as a child process (the built
// dist/cli.js, killed after each test by cli-process.ts), creates sent each on a new connection (so
// that the workers of `--workers` share them), W3C trace context of a caller, the spans of one
// process as the OTLP receiver got them, and the request lines of `--log`.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { listening, type Run, run } from '../../packages/server/test/cli-process.js';
import type { ReceivedSpan } from '../support/otlp-receiver.js';

/** The bearer token every traced server accepts. */
export const TOKEN = 'tr4ced-t0ken';

/** A server started from the CLI, listening. */
export interface TracedServer {
  readonly run: Run;
  /** The API's URL. */
  readonly url: string;
  /** The pid of the process started (the primary, with --workers). */
  readonly pid: number;
  /** Sends SIGTERM and resolves to the exit code once the process has exited and its output is read. */
  stop(): Promise<number | null>;
}

/** Starts `plant-store-server <args> --port 0 --host 127.0.0.1 --token …` with `env` over the environment. */
export async function startServer(args: readonly string[], env: Record<string, string>): Promise<TracedServer> {
  const started = run([...args, '--port', '0', '--host', '127.0.0.1', '--token', TOKEN], env);
  const url = await listening(started);
  return {
    run: started,
    url,
    pid: started.child.pid!,
    stop() {
      started.child.kill('SIGTERM');
      // Not `exited`: the request lines are read from stderr, which the workers of --workers share.
      return started.closed;
    },
  };
}

/** What the server answered to one create. */
export interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * POST {url}/plants with the token and `plant` as JSON, on a connection of its own, with `headers`
 * (a traceparent, an x-request-id). Rejects after 10 s.
 */
export function createPlant(url: string, plant: object, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify(plant);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/plants`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A caller's span: its trace id, its span id, and the `traceparent` header that names it (sampled). */
export function callerSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The spans received from the processes with these pids (the resource's `process.pid`). */
export function spansFrom(spans: readonly ReceivedSpan[], ...pids: number[]): ReceivedSpan[] {
  return spans.filter((span) => pids.includes(span.resource['process.pid'] as number));
}

/** A request line of `--log`. */
export interface RequestLine {
  readonly requestId: string;
  readonly status: number;
  readonly errorCode?: number;
  readonly trace_id?: string;
  readonly span_id?: string;
}

/** The request lines of a server's log (stderr), once it has stopped (its last lines are written at exit). */
export function requestLines(stderr: string): RequestLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as RequestLine & { message?: string })
    .filter((line) => line.message === 'request');
}

/** The SERVER span of each create, and the `plant_store.insert` span under each. */
export function requestSpans(spans: readonly ReceivedSpan[]): { server: ReceivedSpan; insert?: ReceivedSpan }[] {
  return spans
    .filter((span) => span.kind === 'server')
    .map((server) => {
      const insert = spans.find((span) => span.name === 'plant_store.insert' && span.parentSpanId === server.spanId);
      return insert === undefined ? { server } : { server, insert };
    });
}
