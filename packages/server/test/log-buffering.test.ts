// `--log` gathers stderr lines into blocks (a write per line cost a busy server a third of its CPU):
// the real CLI in a child process shows that no line is lost, cut or reordered by it, whether the
// process drains on SIGTERM under load, exits on a second signal, or idles between requests.
import { expect, it } from 'vitest';
import { listening, run } from './cli-process.js';
import { TOKEN } from './helpers.js';

const lines = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const create = (url: string, id: number, requestId: string): Promise<Response> =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ id, name: 'Fern' }),
  });

it('writes every request line, whole and in order, before it exits on SIGTERM', async () => {
  const started = Date.now();
  const cli = run(['--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--log']);
  const url = await listening(cli);
  // Enough lines for several blocks and a partial one left waiting when the signal comes.
  const count = 400;
  for (let sent = 0; sent < count; sent += 20) {
    const batch = Array.from({ length: 20 }, (_, i) => sent + i);
    const answers = await Promise.all(batch.map((n) => create(url, n + 1, `drain-${n}`)));
    for (const answer of answers) expect(answer.status).toBe(200);
  }
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
  // JSON.parse of every line: a cut or interleaved line would throw here.
  const all = lines(cli.stderr);
  const requests = all.filter((line) => line['message'] === 'request');
  expect(requests.map((line) => line['requestId']).sort()).toEqual(
    Array.from({ length: count }, (_, n) => `drain-${n}`).sort(),
  );
  // Each batch's 20 requests ran concurrently, so order is checked between batches: every line of
  // batch k comes before every line of batch k+1.
  const batchOf = (line: Record<string, unknown>) => Math.floor(Number(String(line['requestId']).slice(6)) / 20);
  const batches = requests.map(batchOf);
  expect(batches).toEqual([...batches].sort((a, b) => a - b));
  expect(all.map((line) => line['message'])).toEqual([
    'listening',
    ...requests.map(() => 'request'),
    'draining',
    'stopped',
  ]);
  // A request line's time is its answer's monotonic clock on the wall clock, pino's lines read
  // Date.now(): lines in order of writing, no time before the one before by a millisecond or more.
  const times = all.map((line) => Date.parse(String(line['time'])));
  expect(times.every(Number.isFinite)).toBe(true);
  for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]! - 1);
  expect(times[0]! - started).toBeGreaterThanOrEqual(-1);
});

it('writes a waiting line when it exits on a second signal without draining', async () => {
  const cli = run(['--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--log']);
  const url = await listening(cli);
  expect((await create(url, 1, 'before-signals')).status).toBe(200);
  // A request left open (its body never ends) keeps the drain waiting, so the second signal is
  // what ends the process.
  const socket = await import('node:net').then(({ connect }) => connect(Number(new URL(url).port), '127.0.0.1'));
  socket.write(
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  cli.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(1);
  socket.destroy();
  const all = lines(
    cli.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .join('\n'),
  );
  expect(all.find((line) => line['requestId'] === 'before-signals')).toMatchObject({ message: 'request', status: 200 });
});

it('writes a line of an idle server within about a second, without waiting for more lines or for its exit', async () => {
  const cli = run(['--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--log']);
  const url = await listening(cli);
  expect((await create(url, 1, 'lonely')).status).toBe(200);
  // Bounded wait (5 s on a loaded machine); the line is due after 200 ms.
  for (let i = 0; i < 100 && !cli.stderr.includes('"lonely"'); i++) await new Promise((r) => setTimeout(r, 50));
  expect(lines(cli.stderr).find((line) => line['requestId'] === 'lonely')).toMatchObject({ status: 200 });
  expect(cli.child.exitCode).toBe(null);
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
});
