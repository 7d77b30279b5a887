// Users' view of a crash: a real server process, killed with SIGKILL in the middle of a steady load
// of creates, restarted on the same data file, again and again. Every create that was answered 200
// before a kill must still be there afterwards, and the server must start every time.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOKEN = 'crash-test-token';
const ROUNDS = 20;
const LOOPS = 4;
const STARTUP_MS = 10_000;
const REQUEST_MS = 5_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-crash-'));
const data = path.join(dir, 'plants.log');
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Body {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

/** What the server must answer for a replay of `body`: the Plant, without the id. */
function plantOf(body: Body): string {
  return JSON.stringify(body.tag === undefined ? { name: body.name } : { name: body.name, tag: body.tag });
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<void>;
}

async function start(): Promise<Server> {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--data', data, '--token', TOKEN], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within ${STARTUP_MS} ms; stderr: ${stderr}`)), STARTUP_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the server did not start (exit ${child.exitCode}); stderr: ${stderr}`));
    });
  });
  return { child, url, exited };
}

async function kill(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

function post(agent: http.Agent, url: string, body: Body): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/plants`,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_MS,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Asserts that `body` is stored as sent: a different body conflicts (40003), the same one replays. */
async function expectStored(agent: http.Agent, url: string, body: Body, when: string): Promise<void> {
  const conflict = await post(agent, url, { ...body, name: `${body.name} changed` });
  expect(
    { status: conflict.status, error: (JSON.parse(conflict.text) as { error?: number }).error },
    `conflicting create of ${body.id} ${when}`,
  ).toEqual({
    status: 400,
    error: 40003,
  });
  expect(await post(agent, url, body), `replay of ${body.id} ${when}`).toEqual({ status: 200, text: plantOf(body) });
}

let nextId = 1;
function freshBody(): Body {
  const id = nextId++;
  return id % 2 === 0 ? { id, name: `plant ${id}` } : { id, name: `plant ${id}`, tag: `tag ${id % 7}` };
}

test(`keeps every acknowledged create across ${ROUNDS} SIGKILLs under load, and starts every time`, async () => {
  expect(fs.existsSync(CLI), `build the server first (npm run build): ${CLI} is missing`).toBe(true);
  const acknowledged: Body[] = [];
  let inFlightAtKills = 0;
  let server = await start();

  for (let round = 0; round < ROUNDS; round++) {
    const agent = new http.Agent({ keepAlive: true });
    const ackedThisRound: Body[] = [];
    const unanswered: Body[] = [];
    let killed = false;
    const loadMs = 150 + ((round * 37) % 150);
    // The kill comes loadMs after the first answer, not after the first send: on a busy machine the
    // first answer of a round can take longer than loadMs, and a kill before it would test nothing.
    let firstAnswer!: () => void;
    const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
    const loops = Array.from({ length: LOOPS }, async () => {
      // Bounded by count and time; in practice it ends at the kill, when the socket breaks.
      const deadline = Date.now() + loadMs + 2 * STARTUP_MS;
      for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
        const body = freshBody();
        try {
          const res = await post(agent, server.url, body);
          expect(res, `create ${body.id}`).toEqual({ status: 200, text: plantOf(body) });
          ackedThisRound.push(body);
          firstAnswer();
        } catch (error) {
          if (!killed) throw error;
          unanswered.push(body);
          return;
        }
      }
    });
    await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, STARTUP_MS))]);
    await new Promise((resolve) => setTimeout(resolve, loadMs));
    killed = true;
    await kill(server);
    await Promise.all(loops);
    agent.destroy();
    expect(ackedThisRound.length, `round ${round}: no create was answered before the kill`).toBeGreaterThan(0);
    inFlightAtKills += unanswered.length;
    acknowledged.push(...ackedThisRound);

    server = await start();
    const check = new http.Agent({ keepAlive: true, maxSockets: 8 });
    // Every plant acknowledged in this round (the ones a lost tail would take) and a sample of the
    // older ones. The conflicting create goes first: a replay alone cannot tell a kept plant from
    // a lost one that it silently creates again.
    const sample = [...ackedThisRound, ...acknowledged.filter((_, i) => i % 23 === round % 23)];
    await Promise.all(sample.map((body) => expectStored(check, server.url, body, `after round ${round}`)));
    // A create whose answer was lost in the crash is safe to retry: stored once, as sent.
    for (const body of unanswered) {
      expect(await post(check, server.url, body), `retry of unanswered ${body.id}`).toEqual({
        status: 200,
        text: plantOf(body),
      });
      acknowledged.push(body);
    }
    check.destroy();
  }

  const final = new http.Agent({ keepAlive: true, maxSockets: 8 });
  for (let i = 0; i < acknowledged.length; i += 200) {
    await Promise.all(
      acknowledged.slice(i, i + 200).map((body) => expectStored(final, server.url, body, 'at the end')),
    );
  }
  final.destroy();
  await kill(server);
  // The load really was cut mid-stream: some creates were in flight when a kill landed.
  expect(inFlightAtKills).toBeGreaterThan(0);
}, 120_000);

test('refuses a second server on the same data file, naming the pid of the one that runs', async () => {
  const first = await start();
  try {
    const second = spawn(process.execPath, [CLI, '--port', '0', '--data', data, '--token', TOKEN], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(second);
    let stderr = '';
    second.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => second.once('exit', (exitCode) => resolve(exitCode)));
    children.delete(second);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`${data} is in use by process ${first.child.pid}`);
    // The refused server left the running one's lock alone.
    expect(fs.readFileSync(`${data}.lock`, 'utf8').trim()).toBe(String(first.child.pid));
  } finally {
    await kill(first);
  }
}, 30_000);
