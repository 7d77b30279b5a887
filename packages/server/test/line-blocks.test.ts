// The request line is encoded by the server itself (src/internal/line-blocks.ts), in pino's form:
// its bytes must be the very bytes pino writes for the same fields at the same time, for every value
// the logger can pass; and lines are handed out in whole blocks, in order.
import pino from 'pino';
import { expect, it } from 'vitest';
import { LineBlocks } from '../src/internal/line-blocks.js';

const WALL_MS = Date.parse('2026-11-25T16:42:24.123Z');

interface Line {
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly path: string;
  readonly status: number | 'aborted';
  readonly durationMs: number;
  readonly errorCode: number | undefined;
}

function collect(worker = '') {
  const written: Buffer[] = [];
  const blocks = new LineBlocks((bytes) => written.push(Buffer.from(bytes)), worker);
  return { blocks, written, text: () => Buffer.concat(written).toString('utf8') };
}

/** Hands `line` to `blocks` as the logger does, at `wallMs` (within WALL_MS's millisecond by default). */
function put(blocks: LineBlocks, line: Line, wallMs = WALL_MS + 0.7): void {
  blocks.request(
    line.requestId,
    line.method,
    line.path,
    line.status,
    line.durationMs,
    line.errorCode,
    undefined,
    wallMs,
  );
}

/** What pino writes for `line` at WALL_MS, set up as the logger sets it up. */
function pinoLine(line: Line, worker?: number): string {
  let text = '';
  const log = pino(
    {
      messageKey: 'message',
      base: worker === undefined ? undefined : { worker },
      timestamp: () => `,"time":"${new Date(WALL_MS).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (chunk: string) => (text += chunk) },
  );
  log.info({ ...line }, 'request');
  return text;
}

const base: Line = {
  requestId: '8027cfef-e6f5-4e6f-83a9-db188935713b',
  method: 'POST',
  path: '/plants',
  status: 200,
  durationMs: 1.25,
  errorCode: undefined,
};

it('writes the very bytes pino writes for the same fields, every string, duration and status form included', () => {
  const lines: Line[] = [
    base,
    { ...base, requestId: undefined, method: undefined },
    { ...base, status: 'aborted' },
    { ...base, status: 400, errorCode: 40003 },
    { ...base, path: '/api/v1/plants?x=1&y=%20', requestId: 'a-b_c.d:e/f' },
    { ...base, path: `/${'p'.repeat(1_023)}…` },
  ];
  for (const odd of ['/pl"ants', '/pl\\ants', '/pl\nants', '/plänts', '/pl\u2028ants', '/p\u0001l\tants', '🌿']) {
    lines.push({ ...base, path: odd }, { ...base, requestId: odd }, { ...base, method: odd });
  }
  for (const durationMs of [0, 0.01, 0.1, 0.5, 1, 1.05, 1.2, 9.99, 10, 123.45, 100000.07, 0.33, -0.5, -0, 1e25])
    lines.push({ ...base, durationMs });
  lines.push({ ...base, durationMs: Number.NaN }, { ...base, durationMs: Number.POSITIVE_INFINITY });
  for (const worker of [undefined, 3]) {
    for (const line of lines) {
      const { blocks, text } = collect(worker === undefined ? '' : `,"worker":${worker}`);
      put(blocks, line);
      blocks.hand();
      expect(text()).toBe(pinoLine(line, worker));
    }
    // All in one run, each line after another (the parts a line shares with the one before are kept).
    const { blocks, text } = collect(worker === undefined ? '' : `,"worker":${worker}`);
    const run = [...lines, ...[...lines].reverse(), base, base, { ...base, status: 400 }, base];
    for (const line of run) put(blocks, line);
    blocks.hand();
    expect(text()).toBe(run.map((line) => pinoLine(line, worker)).join(''));
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

it('hands a block over before it would overflow, and keeps every line whole and in order', () => {
  const { blocks, written, text } = collect();
  const count = 2_000;
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) blocks.write(`{"message":"other ${i}"}\n`);
    else put(blocks, { ...base, requestId: `id-${i}`, path: `/plants/${'x'.repeat(i % 700)}` });
  }
  // Past a block: a text line, and a request line (the logger cuts paths; the blocks do not).
  blocks.write(`${'y'.repeat(70_000)}\n`);
  put(blocks, { ...base, requestId: 'long', path: `/${'z'.repeat(70_000)}` });
  blocks.hand();
  expect(written.length).toBeGreaterThan(10);
  for (const block of written.slice(0, -3)) expect(block.length).toBeLessThanOrEqual(65_536);
  const lines = text().trimEnd().split('\n');
  expect(lines).toHaveLength(count + 2);
  lines.slice(0, count).forEach((line, i) => {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(i % 3 === 0 ? parsed['message'] : parsed['requestId']).toBe(i % 3 === 0 ? `other ${i}` : `id-${i}`);
  });
  expect(lines[count]).toHaveLength(70_000);
  expect(JSON.parse(lines[count + 1]!)).toMatchObject({ requestId: 'long', path: `/${'z'.repeat(70_000)}` });
});

it('hands nothing out while nothing waits', () => {
  const { blocks, written } = collect();
  blocks.hand();
  put(blocks, base);
  blocks.hand();
  blocks.hand();
  expect(written).toHaveLength(1);
});
