// Real traffic for the end-to-end tests on PostgreSQL: plant-store-server processes on one table, creates
// sent over keep-alive HTTP/1.1 connections, a bounded load generator that records every answer, and the
// checks made once it stops (every acknowledged plant is in the table, and is answered the same when sent
// again). Every wait is bounded; the servers are killed after each test (cli-process.ts).
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { listening, type Run, run } from '../../packages/server/test/cli-process.js';

/** The bearer token every server of these tests accepts. */
export const TOKEN = 'e2e-t0ken';

/** One server process and the origin it listens on. */
export interface ServerProcess {
  readonly run: Run;
  readonly origin: string;
}

/** Starts `count` plant-store-server processes at once with `args` (the --database flags), on free ports; `cli` runs another build. */
export async function startServers(args: readonly string[], count = 2, cli?: string): Promise<ServerProcess[]> {
  const runs = Array.from({ length: count }, () =>
    run([...args, '--port', '0', '--host', '127.0.0.1', '--token', TOKEN], {}, cli),
  );
  const urls = await Promise.all(runs.map((each) => listening(each)));
  return runs.map((each, index) => ({ run: each, origin: new URL(urls[index]!).origin }));
}

/** What a server answered to one create. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: string | undefined;
  /** The create was sent a second time, on another connection, after the keep-alive race (see {@link sendCreate}). */
  readonly resent?: true;
}

/** When each idle connection of a {@link keepAliveAgent} went idle, and how long the agent keeps it so. */
const idle = new WeakMap<Socket, { readonly since: number; readonly keepMs: number }>();

/**
 * The connections the creates of these tests go on: kept alive as Node's own `http.globalAgent` keeps
 * them (`keepAlive`, `timeout` 5 s). The `timeout` is what makes Node's agent follow the server's
 * `Keep-Alive: timeout=5`: it drops a connection idle for 4 s, before the server may close it (Node's
 * server closes one idle for 5 s, and waits a second more); undici, under fetch and
 * `@plant-store/client`, drops it at 3 s. Made with `{ keepAlive: true }` alone, the agent ignores the
 * hint and keeps an idle connection until the server closes it, so a create sent on it just as the
 * server does was reset ('socket hang up', issue 46).
 */
export function keepAliveAgent(): Agent {
  const agent = new Agent({ keepAlive: true, timeout: 5_000 });
  // Runs after the agent's own listener, which sets the socket's timeout from the server's hint.
  agent.on('free', (socket: Socket) => idle.set(socket, { since: performance.now(), keepMs: socket.timeout ?? 0 }));
  return agent;
}

/**
 * Sends one create, `body` as given, on the connections of `agent` (a {@link keepAliveAgent}); rejects
 * on a network error or after `ms`. One reset is sent again on another connection, as a real client
 * would (`@plant-store/client` sends a create again after any network failure: it is a replay): the
 * reset of a kept-alive connection that got no answer and had been idle as long as the agent keeps
 * one or longer. The agent's timer was due but had not run, the event loop being late on a busy
 * machine, and the server had closed the connection as idle, as its `Keep-Alive` said it may, before
 * reading a byte of the create. Any other reset is the server's doing and fails: a new connection, or
 * a kept-alive one closed before the time the server announced.
 */
export function sendCreate(agent: Agent, origin: string, body: string, ms = 10_000): Promise<Answer> {
  return sendOnce(agent, origin, body, ms).catch((error: NodeJS.ErrnoException & { keptTooLong?: boolean }) => {
    if (error.code !== 'ECONNRESET' || !error.keptTooLong) throw error;
    return sendOnce(agent, origin, body, ms).then((answer): Answer => ({ ...answer, resent: true }));
  });
}

function sendOnce(agent: Agent, origin: string, body: string, ms: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    let keptTooLong = false;
    const req = request(
      `${origin}/plants`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('the answer was cut short'));
        });
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), retryAfter });
        });
      },
    );
    req.on('socket', (socket: Socket) => {
      const since = idle.get(socket);
      keptTooLong =
        req.reusedSocket && since !== undefined && since.keepMs > 0 && performance.now() - since.since >= since.keepMs;
    });
    req.setTimeout(ms, () => req.destroy(new Error(`no answer within ${ms} ms`)));
    req.on('error', (error: NodeJS.ErrnoException & { keptTooLong?: boolean }) => {
      // Only a request that got no answer at all is the keep-alive race.
      error.keptTooLong = keptTooLong && !answered;
      reject(error);
    });
    req.end(body);
  });
}

/** The create the load sends for `id`: the name is derived from the id, so any answer can be checked. */
export const plantBody = (id: bigint) => `{"id":${id},"name":"plant ${id}"}`;
/** The body of a 200 (created or replayed) for {@link plantBody}. */
export const plantAnswer = (id: bigint) => `{"name":"plant ${id}"}`;

/** The `error` code of an Error body, if it is one. */
export function errorCode(body: string): number | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'number' ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

/** One create the load sent, and what came of it. */
export interface Sent {
  readonly id: bigint;
  /** The index of the origin it went to. */
  readonly server: number;
  /** What the test's `phase()` said when the create was sent. */
  readonly phase: string;
  readonly sentAt: number;
  readonly answeredAt: number;
  /** The answer, or undefined when the connection failed (then `error` says how). */
  readonly answer?: Answer;
  readonly error?: string;
}

export interface LoadOptions {
  readonly origins: readonly string[];
  /** Creates in flight at once, each caller sending its next one when answered. */
  readonly concurrency: number;
  /** Read as each create is sent, and recorded with it. */
  readonly phase?: () => string;
  /** The load stops by itself after this long, whatever the test does. */
  readonly maxMs: number;
  /**
   * After a 503, a caller waits the answer's Retry-After, as the API asks clients to (and as
   * `createPlant` does), instead of 5 ms: the share of 503s then measures the outage, not how fast
   * a client can ask again.
   */
  readonly waitRetryAfter?: boolean;
  /**
   * After a 503, a caller sends the same create again (a replay, after the pause above), up to this many
   * times, as `createPlant` does (its default is 2), before it goes on to a new plant. Default 0.
   */
  readonly resendUnavailable?: number;
}

/** A running load: every create sent so far, with its answer. */
export interface Load {
  readonly sent: readonly Sent[];
  /** The creates answered 200: the plants a client was told are stored. */
  acknowledged(): Sent[];
  /** Stops sending, waits for the creates in flight, and closes the connections. */
  stop(): Promise<void>;
}

// Above 2^53, where a double would merge neighbouring ids.
const FIRST_ID = 2n ** 53n + 1n;

/**
 * Starts `concurrency` callers sending creates of new plants (unique ids from one counter, each id to
 * the origin `id mod origins.length`) over keep-alive connections until stopped or `maxMs` has passed.
 * A caller that gets no 200 pauses 5 ms, so a server that refuses fast does not turn the load into a spin.
 */
export function startLoad(options: LoadOptions): Load {
  const agent = keepAliveAgent();
  const sent: Sent[] = [];
  const deadline = Date.now() + options.maxMs;
  let next = FIRST_ID;
  let stopped = false;
  const callers = Array.from({ length: options.concurrency }, async () => {
    /** The create answered 503 that this caller sends again next, and how often it has been sent again. */
    let again: { id: bigint; times: number } | undefined;
    while (!stopped && Date.now() < deadline) {
      const id = again?.id ?? next++;
      const resent = again?.times ?? 0;
      again = undefined;
      const server = Number(id % BigInt(options.origins.length));
      const phase = options.phase?.() ?? '';
      const sentAt = Date.now();
      let pause = 5;
      try {
        const answer = await sendCreate(agent, options.origins[server]!, plantBody(id));
        sent.push({ id, server, phase, sentAt, answeredAt: Date.now(), answer });
        if (answer.status === 200) continue;
        if (answer.status === 503 && options.waitRetryAfter) pause = 1000 * Number(answer.retryAfter ?? 1);
        if (answer.status === 503 && resent < (options.resendUnavailable ?? 0)) again = { id, times: resent + 1 };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        sent.push({ id, server, phase, sentAt, answeredAt: Date.now(), error: message });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
    }
  });
  return {
    sent,
    acknowledged: () => sent.filter((each) => each.answer?.status === 200),
    stop: async () => {
      stopped = true;
      await Promise.all(callers);
      agent.destroy();
    },
  };
}

/** Polls until `condition` holds, `ms` at most; resolves to the milliseconds it took. */
export async function waitFor(ms: number, what: string, condition: () => boolean | Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits (bounded by `ms`) until a second has passed since `since` and each of `servers` servers has
 * answered `count` creates sent in `phase`: an outage long enough to be asked about many times.
 */
export function waitForOutage(load: Load, phase: string, since: number, servers: number, count = 50, ms = 15_000) {
  return waitFor(
    ms,
    `a second since ${phase}, with ${count} answers from each server to creates sent meanwhile`,
    () =>
      Date.now() - since >= 1_000 &&
      Array.from({ length: servers }).every(
        (_, server) => load.sent.filter((each) => each.phase === phase && each.server === server).length >= count,
      ),
  );
}

/**
 * Waits (bounded by `ms`: the rule's own bound is asserted on {@link servingAgain}) for a 200 from each
 * server to a create sent in `phase`. When it does not come, the error says what each server answered
 * meanwhile and, given `processes`, whether it still runs and the end of what it wrote to stderr.
 */
export async function waitForServing(
  load: Load,
  phase: string,
  servers: number,
  ms = 15_000,
  processes?: readonly ServerProcess[],
): Promise<number> {
  try {
    return await waitFor(ms, `a 200 from each server for a create sent in ${phase}`, () =>
      Array.from({ length: servers }).every((_, server) =>
        load.sent.some((each) => each.phase === phase && each.server === server && each.answer?.status === 200),
      ),
    );
  } catch (error) {
    const seen = Array.from({ length: servers }, (_, server) => {
      const outcomes = new Map<string, number>();
      for (const each of load.sent) {
        if (each.phase !== phase || each.server !== server) continue;
        const outcome = each.answer === undefined ? `error ${each.error}` : `${each.answer.status} ${each.answer.body}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      const answers = [...outcomes].map(([outcome, count]) => `${count} × ${outcome.slice(0, 200)}`).join('; ');
      const run = processes?.[server]?.run;
      const state =
        run === undefined
          ? ''
          : `; process ${run.child.exitCode === null && run.child.signalCode === null ? 'running' : `ended (${run.child.exitCode ?? run.child.signalCode})`}, stderr ends: ${JSON.stringify(run.stderr.slice(-600))}`;
      return `server ${server}: ${answers || 'nothing sent'}${state}`;
    });
    throw new Error(`${(error as Error).message}\n${seen.join('\n')}`);
  }
}

/** For each of `servers` servers, the ms from `since` to its first 200 for a create sent in `phase`. */
export function servingAgain(sent: readonly Sent[], phase: string, since: number, servers: number): number[] {
  return Array.from({ length: servers }, (_, server) =>
    Math.min(
      ...sent
        .filter((each) => each.phase === phase && each.server === server && each.answer?.status === 200)
        .map((each) => each.answeredAt - since),
    ),
  );
}

/** Runs one statement on the test's database. */
export type Query = <Row extends object>(sql: string, values?: unknown[]) => Promise<Row[]>;

/**
 * The acknowledged creates whose plant is not in `table` (a quoted, qualified name) exactly as sent:
 * missing, or stored with another name or a tag.
 */
export async function lostPlants(query: Query, table: string, acknowledged: readonly Sent[]): Promise<bigint[]> {
  const rows = await query<{ id: string; name: string; tag: string | null }>(
    `SELECT id::text AS id, name, tag FROM ${table} WHERE id = ANY ($1::bigint[])`,
    [acknowledged.map((each) => String(each.id))],
  );
  const stored = new Map(rows.map((row) => [row.id, row]));
  return acknowledged
    .filter((each) => {
      const row = stored.get(String(each.id));
      return row === undefined || row.name !== `plant ${each.id}` || row.tag !== null;
    })
    .map((each) => each.id);
}

/**
 * Sends every acknowledged create again (32 at a time, spread over `origins`) and returns those not
 * answered 200 with the same body: a replay must give back exactly what the first answer said.
 */
export async function answeredDifferently(
  origins: readonly string[],
  acknowledged: readonly Sent[],
): Promise<string[]> {
  const agent = keepAliveAgent();
  const different: string[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < acknowledged.length) {
          const { id } = acknowledged[next++]!;
          const origin = origins[Number(id % BigInt(origins.length))]!;
          const answer = await sendCreate(agent, origin, plantBody(id)).catch((error: unknown) => String(error));
          if (typeof answer === 'string') different.push(`${id}: ${answer}`);
          else if (answer.status !== 200 || answer.body !== plantAnswer(id)) {
            different.push(`${id}: ${answer.status} ${answer.body}`);
          }
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return different;
}
