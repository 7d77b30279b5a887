// The request line written as bytes must be the very bytes of the line as text, for every value the
// listener can pass, and a line that needs escaping must be left to the text.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  durationOnLine,
  fdWriter,
  isoTimeOf,
  LineBlocks,
  type RequestLine,
  requestLineText,
} from '../src/internal/line-blocks.js';

function collect(worker = '') {
  const written: Buffer[] = [];
  const blocks = new LineBlocks({ write: (bytes) => written.push(Buffer.from(bytes)) }, worker);
  return { blocks, text: () => Buffer.concat(written).toString('utf8') };
}

const WALL_MS = Date.parse('2026-11-25T16:42:24.123Z');
const TIME = isoTimeOf(WALL_MS);

/** Hands `line` to `blocks` as the logger does, at `wallMs` (a time within WALL_MS's millisecond by default). */
function put(blocks: LineBlocks, line: RequestLine, wallMs = WALL_MS + 0.7): void {
  blocks.request(line.requestId, line.method, line.path, line.status, line.durationMs, line.errorCode, wallMs);
}
const base: RequestLine = {
  requestId: '8027cfef-e6f5-4e6f-83a9-db188935713b',
  method: 'POST',
  path: '/plants',
  status: 200,
  durationMs: 1.25,
  errorCode: undefined,
};

it('writes the same bytes as the text for plain values, every duration and status form included', () => {
  const lines: RequestLine[] = [
    base,
    { ...base, requestId: undefined, method: undefined },
    { ...base, status: 'aborted' },
    { ...base, status: 400, errorCode: 40003 },
    { ...base, path: '/api/v1/plants?x=1&y=%20', requestId: 'a-b_c.d:e/f' },
  ];
  for (const durationMs of [
    0,
    0.01,
    0.1,
    0.5,
    1,
    1.05,
    1.2,
    9.99,
    10,
    123.45,
    100000.07,
    0.005,
    1 / 3,
    1.2345,
    2.675,
    0.004,
    0.0049999,
    87.654321,
    -0.5,
    1e25,
    Number.NaN,
  ])
    lines.push({ ...base, durationMs });
  for (const worker of ['', ',"worker":3']) {
    for (const line of lines) {
      const { blocks, text } = collect(worker);
      put(blocks, line);
      blocks.hand();
      expect(text()).toBe(requestLineText(line, TIME, worker));
      const parsed = JSON.parse(text()) as Record<string, unknown>;
      expect(parsed['durationMs']).toBe(Number.isNaN(line.durationMs) ? null : durationOnLine(line.durationMs));
    }
  }
});

it("stamps each line with the millisecond of its wall-clock time, as pino's time reads", () => {
  const { blocks, text } = collect();
  const times = [
    WALL_MS,
    WALL_MS + 0.999,
    WALL_MS + 1,
    WALL_MS + 1.5,
    WALL_MS + 876.5,
    WALL_MS + 877,
    WALL_MS + 964,
    WALL_MS + 86_400_000.25,
    WALL_MS - 0.5,
  ];
  for (const wallMs of times) put(blocks, base, wallMs);
  blocks.hand();
  const stamped = text()
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { time: string }).time);
  expect(stamped).toEqual([
    '2026-11-25T16:42:24.123Z',
    '2026-11-25T16:42:24.123Z',
    '2026-11-25T16:42:24.124Z',
    '2026-11-25T16:42:24.124Z',
    '2026-11-25T16:42:24.999Z',
    '2026-11-25T16:42:25.000Z',
    '2026-11-25T16:42:25.087Z',
    '2026-11-26T16:42:24.123Z',
    '2026-11-25T16:42:24.122Z',
  ]);
});

it('writes a line with a quote, a backslash, a control character or non-ASCII as its JSON text', () => {
  for (const odd of ['/pl"ants', '/pl\\ants', '/pl\nants', '/plänts', '/pl\u2028ants']) {
    for (const line of [
      { ...base, path: odd },
      { ...base, requestId: odd },
      { ...base, method: odd },
    ]) {
      const { blocks, text } = collect();
      put(blocks, base);
      put(blocks, line);
      put(blocks, base);
      blocks.hand();
      const one = requestLineText(base, TIME, '');
      expect(text()).toBe(`${one}${requestLineText(line, TIME, '')}${one}`);
      expect(JSON.parse(text().split('\n')[1]!)).toMatchObject({
        path: line.path,
        requestId: line.requestId,
        method: line.method,
      });
    }
  }
});

it('hands a block over before it would overflow, and keeps every line whole and in order', () => {
  const { blocks, text } = collect();
  const count = 2_000;
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) blocks.write(`{"message":"other ${i}"}\n`);
    else put(blocks, { ...base, requestId: `id-${i}`, path: `/plants/${'x'.repeat(i % 700)}` });
  }
  blocks.write(`${'y'.repeat(70_000)}\n`);
  blocks.hand();
  const lines = text().trimEnd().split('\n');
  expect(lines).toHaveLength(count + 1);
  lines.slice(0, count).forEach((line, i) => {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(i % 3 === 0 ? parsed['message'] : parsed['requestId']).toBe(i % 3 === 0 ? `other ${i}` : `id-${i}`);
  });
  expect(lines[count]).toHaveLength(70_000);
});

describe('fdWriter', () => {
  it('writes every byte through a full non-blocking pipe, waiting for its slow reader', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'line-blocks-'));
    try {
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      // A reader that takes its time, so the pipe (64 KiB) fills and writes meet EAGAIN.
      const reader = spawn('sh', ['-c', `sleep 0.3; cat "${fifo}" > "${join(dir, 'out')}"`]);
      const exited = new Promise((resolve) => reader.on('exit', resolve));
      const fd = await new Promise<number>((resolve) => {
        const poll = () => {
          try {
            resolve(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
          } catch {
            setTimeout(poll, 10);
          }
        };
        poll();
      });
      const blocks = new LineBlocks(fdWriter(fd));
      const count = 20_000;
      for (let i = 0; i < count; i++) put(blocks, { ...base, requestId: `id-${i}` });
      blocks.hand();
      closeSync(fd);
      await exited;
      const lines = readFileSync(join(dir, 'out'), 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(count);
      expect(lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId)).toEqual(
        Array.from({ length: count }, (_, i) => `id-${i}`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('drops a block it cannot write (the reader has gone) and goes on, never throwing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'line-blocks-'));
    try {
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writeEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      closeSync(readEnd);
      const blocks = new LineBlocks(fdWriter(writeEnd));
      // EPIPE on every write: Node ignores SIGPIPE, and the writer drops the block.
      expect(() => {
        for (let i = 0; i < 1_000; i++) put(blocks, base);
        blocks.write('{"message":"stopped"}\n');
        blocks.hand();
      }).not.toThrow();
      closeSync(writeEnd);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
