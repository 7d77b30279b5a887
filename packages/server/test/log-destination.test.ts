// The log on a file descriptor (stderr in the server): lines gathered into blocks and written whole,
// in order, within about a second at most; a full pipe waited for, a pipe whose reader has gone or
// a full disk never stopping the server. And the request line as a logger writes it: every string
// JSON-encoded, the duration to the hundredth of a millisecond, a long path cut.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LineBlocks } from '../src/internal/line-blocks.js';
import { createLogger, durationOnLine, fdBlocks, fdDestination } from '../src/internal/logger.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const ID = '8027cfef-e6f5-4e6f-83a9-db188935713b';

/** Request lines `id-<from>` … `id-<to - 1>` into `blocks`. */
function requestLines(blocks: LineBlocks, from: number, to: number, path = '/plants'): void {
  for (let i = from; i < to; i++) blocks.request(`id-${i}`, 'POST', path, 200, 1.25, undefined, undefined, Date.now());
}

const parsed = (text: string): Array<Record<string, unknown>> =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('fdBlocks', () => {
  it('holds lines until a block fills or it is handed out, then writes them whole and in order', () => {
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    try {
      const blocks = fdBlocks(fd, ',"worker":2');
      requestLines(blocks, 0, 10);
      expect(statSync(file).size).toBe(0);
      blocks.hand();
      expect(parsed(readFileSync(file, 'utf8')).map((line) => line['requestId'])).toEqual(
        Array.from({ length: 10 }, (_, i) => `id-${i}`),
      );
      requestLines(blocks, 10, 2_000, `/plants/${'x'.repeat(100)}`);
      expect(statSync(file).size).toBeGreaterThan(100_000);
      blocks.hand();
      const lines = parsed(readFileSync(file, 'utf8'));
      expect(lines.map((line) => line['requestId'])).toEqual(Array.from({ length: 2_000 }, (_, i) => `id-${i}`));
      expect(lines.every((line) => line['worker'] === 2)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });

  it('writes what waits within about a second without being asked', async () => {
    const file = join(dir, 'log');
    const fd = openSync(file, 'w');
    try {
      requestLines(fdBlocks(fd, ''), 0, 3);
      expect(statSync(file).size).toBe(0);
      for (let i = 0; i < 100 && statSync(file).size === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(parsed(readFileSync(file, 'utf8'))).toHaveLength(3);
    } finally {
      closeSync(fd);
    }
  });

  it('writes every byte through a full non-blocking pipe, waiting for its slow reader', async () => {
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
    const blocks = fdBlocks(fd, '');
    const count = 20_000;
    requestLines(blocks, 0, count);
    blocks.hand();
    closeSync(fd);
    await exited;
    expect(parsed(readFileSync(join(dir, 'out'), 'utf8')).map((line) => line['requestId'])).toEqual(
      Array.from({ length: count }, (_, i) => `id-${i}`),
    );
  });
});

describe('fdDestination', () => {
  it('drops what it cannot write (the reader has gone) and goes on, never throwing', () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(readEnd);
    // EPIPE on every write: Node ignores SIGPIPE, and the destination drops the lines. The write end
    // stays open: what a destination could not write, it may try again on it.
    const destination = fdDestination(writeEnd);
    expect(() => {
      for (let i = 0; i < 1_000; i++) destination.write(Buffer.from(`{"message":"line ${i}"}\n`));
    }).not.toThrow();
  });

  it.skipIf(!existsSync('/dev/full'))('drops what a full disk refuses and goes on, never throwing', () => {
    // Kept open, as the pipe above.
    const destination = fdDestination(openSync('/dev/full', 'w'));
    let dropped = 0;
    destination.on('drop', () => dropped++);
    // ENOSPC on every write; what waits is bounded, so blocks past the bound are dropped.
    const block = Buffer.from(`${JSON.stringify({ message: 'x'.repeat(60_000) })}\n`);
    expect(() => {
      for (let i = 0; i < 100; i++) destination.write(block);
    }).not.toThrow();
    expect(dropped).toBeGreaterThan(0);
  });
});

describe('the request line', () => {
  function collect(worker?: number) {
    let text = '';
    const logger = createLogger({ write: (line: string) => (text += line) }, worker === undefined ? {} : { worker });
    return { logger, lines: () => parsed(text), raw: () => text };
  }

  it('keeps a quote, a backslash, a control character or non-ASCII inside its JSON string', () => {
    for (const odd of ['/pl"ants', '/pl\\ants', '/pl\nants', '/plänts', '/pl\u2028ants', '/p"l\\a\tn\u0001ts']) {
      const { logger, lines, raw } = collect();
      logger.request(odd, odd, odd, 400, 1, 40003);
      expect(raw().split('\n')).toHaveLength(2);
      expect(lines()[0]).toMatchObject({ requestId: odd, method: odd, path: odd, status: 400, errorCode: 40003 });
    }
  });

  it('writes the duration rounded to the hundredth of a millisecond, and null where JSON has no number', () => {
    const durations = [0, 0.004, 0.005, 0.01, 1 / 3, 1.2, 1.2345, 2.675, 87.654321, 100000.07, -0.5, 1e25];
    const { logger, lines } = collect();
    for (const ms of durations) logger.request(ID, 'POST', '/plants', 200, ms, undefined);
    logger.request(ID, 'POST', '/plants', 200, Number.NaN, undefined);
    expect(lines().map((line) => line['durationMs'])).toEqual([...durations.map(durationOnLine), null]);
    expect(durationOnLine(1.2345)).toBe(1.23);
    expect(durationOnLine(0.005)).toBe(0.01);
  });

  it('writes level, time, worker, the fields in order, then the message; no request id, method or Error code when absent', () => {
    const { logger, lines, raw } = collect(3);
    const before = Date.now();
    logger.request(ID, 'POST', '/plants', 200, 1.25, undefined);
    logger.request(undefined, undefined, '/plants', 'aborted', 0, undefined);
    logger.request(ID, 'POST', '/plants', 400, 1.25, 40003);
    const [first, aborted, failed] = lines();
    expect(Object.keys(first!)).toEqual([
      'level',
      'time',
      'worker',
      'requestId',
      'method',
      'path',
      'status',
      'durationMs',
      'message',
    ]);
    expect(first).toMatchObject({ level: 'info', worker: 3, status: 200, durationMs: 1.25, message: 'request' });
    expect(Date.parse(String(first!['time']))).toBeGreaterThanOrEqual(before - 1);
    expect(Object.keys(aborted!)).toEqual(['level', 'time', 'worker', 'path', 'status', 'durationMs', 'message']);
    expect(aborted!['status']).toBe('aborted');
    expect(Object.keys(failed!)).toContain('errorCode');
    expect(raw().split('\n')[2]).toMatch(/"durationMs":1\.25,"errorCode":40003,"message":"request"\}$/);
  });

  it('writes the trace and span ids of a traced request after the Error code, as trace_id and span_id', () => {
    const { logger, lines, raw } = collect(1);
    const trace = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    logger.request(ID, 'POST', '/plants', 409, 2.5, 40003, trace);
    logger.request(ID, 'POST', '/plants', 200, 1, undefined);
    const [traced, untraced] = lines();
    expect(traced).toMatchObject({ status: 409, errorCode: 40003, trace_id: trace.traceId, span_id: trace.spanId });
    expect(raw().split('\n')[0]).toMatch(
      /"errorCode":40003,"trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331","message":"request"\}$/,
    );
    expect(Object.keys(untraced!)).not.toContain('trace_id');
  });

  it('cuts a path longer than 1024 characters', () => {
    const { logger, lines } = collect();
    logger.request(ID, 'GET', `/${'p'.repeat(5_000)}`, 404, 1, 40401);
    expect(lines()[0]!['path']).toBe(`/${'p'.repeat(1_023)}…`);
  });
});
