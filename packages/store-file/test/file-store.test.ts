import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { PLANT_FIELDS } from '@plant-store/core';
import { afterEach, beforeEach, expect, test } from 'vitest';
import pkg from '../package.json';
import { FileStoreError } from '../src/file-store-error.js';
import { openFileStore, type FileStore } from '../src/file-store.js';
import { FileStoreEngine } from '../src/internal/file-store-engine.js';
import { V2_HEADER_LINE } from '../src/internal/file-store-header.js';
import { NODE_IO, type FileStoreIo } from '../src/internal/file-store-io.js';
import { PREALLOCATE_CHUNK } from '../src/internal/file-store-preallocation.js';
import { HEADER_LINE, SPEC, encodePlant, logWith } from './log-bytes.js';
import { OLDER } from './shapes.js';

let dir: string;
let file: string;
const opened: FileStore[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-file-store-'));
  file = path.join(dir, 'plants.log');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<FileStore> {
  const store = await openFileStore({ path: file });
  opened.push(store);
  return store;
}

async function reopen(store: FileStore): Promise<FileStore> {
  await store.close();
  return open();
}

const PLANTS = [
  { id: 1n, name: 'Fern', tag: 'green' },
  { id: -(2n ** 63n), name: '' },
  { id: 2n ** 63n - 1n, name: 'line\nbreak "quoted" \u2028 \ud800 lone surrogate', tag: 'ü🌱' },
  { id: 2n ** 53n + 1n, name: 'Just past double precision' },
];

/** The file as written so far: the zeros preallocated after the last record left out. */
function written(): Buffer {
  const bytes = fs.readFileSync(file);
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

type Plant = { id: bigint; name: string; tag?: string };

/** A log of `batches` as the engine writes them: each record names its batch's first byte. */
function logOf(...batches: ReadonlyArray<readonly Plant[]>): Buffer {
  return logWith(HEADER_LINE, SPEC, batches);
}

/** Where each record of `logOf(...batches)` starts, in order. */
function offsetsOf(...batches: ReadonlyArray<readonly Plant[]>): number[] {
  const out: number[] = [];
  let offset = HEADER_LINE.length;
  for (const plant of batches.flat()) {
    out.push(offset);
    offset += encodePlant(plant, 0).length;
  }
  return out;
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid!;
}

test('refuses options without a path with a TypeError that names the call, and creates nothing', async () => {
  const before = fs.readdirSync(process.cwd());
  for (const bad of ['plants.log', undefined, null, {}, { path: '' }, { path: 42 }]) {
    await expect(openFileStore(bad as never)).rejects.toThrow(/^openFileStore takes \{ path: string \}/);
    await expect(openFileStore(bad as never)).rejects.toBeInstanceOf(TypeError);
  }
  expect(fs.readdirSync(process.cwd())).toEqual(before);
});

test('replays every plant, exactly, after close and reopen', async () => {
  let store = await open();
  for (const plant of PLANTS) expect(await store.insert(plant)).toEqual({ created: true });
  store = await reopen(store);
  expect(await store.list()).toEqual(PLANTS);
  expect(await store.size()).toBe(PLANTS.length);
  expect(await store.get(2n ** 53n + 1n)).toEqual(PLANTS[3]);
  expect(await store.get(2n ** 53n)).toBeUndefined();
  expect(store.recovery).toMatchObject({ plants: PLANTS.length, truncatedBytes: 0, created: false });
});

test('writes a header and one checksummed line per plant: its batch, then JSON with the id as a decimal string', async () => {
  const store = await open();
  await store.insert({ id: 12n, name: 'Fern', tag: 'green' });
  const text = written().toString('utf8');
  const batch = HEADER_LINE.length.toString(16).padStart(12, '0');
  const rest = `${batch} {"id":"12","name":"Fern","tag":"green"}`;
  const fields = PLANT_FIELDS.map((field) => ({ name: field.name, kind: field.kind }));
  const header = JSON.stringify({
    format: 'plant-store-log',
    version: 3,
    writer: `${pkg.name}@${pkg.version}`,
    fields,
  });
  expect(HEADER_LINE.toString()).toBe(`${zlib.crc32(header).toString(16).padStart(8, '0')} ${header}\n`);
  expect(text).toBe(`${HEADER_LINE.toString()}${zlib.crc32(rest).toString(16).padStart(8, '0')} ${rest}\n`);
  expect(store.recovery.created).toBe(true);
});

test('stores only id, name and tag, whatever else the plant object carries', async () => {
  let store = await open();
  await store.insert({ id: 5n, name: 'Fern', extra: 'secret' } as never);
  store = await reopen(store);
  expect(await store.list()).toEqual([{ id: 5n, name: 'Fern' }]);
  expect(fs.readFileSync(file, 'utf8')).not.toContain('secret');
});

test('answers a taken id with the existing plant and writes nothing', async () => {
  const store = await open();
  await store.insert({ id: 7n, name: 'Fern' });
  const bytes = written();
  expect(await store.insert({ id: 7n, name: 'Other', tag: 'x' })).toEqual({
    created: false,
    existing: { id: 7n, name: 'Fern' },
  });
  expect(written().equals(bytes)).toBe(true);
  expect(store.stats().records).toBe(1);
});

test('lets exactly one of many concurrent inserts of one id win, the others see the winner', async () => {
  let store = await open();
  await store.insert({ id: 1n, name: 'before' });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => store.insert({ id: 99n, name: `name ${i % 3}` })),
  );
  const winners = results.filter((r) => r.created);
  expect(winners).toHaveLength(1);
  const winner = results.indexOf(winners[0]!);
  for (const result of results) {
    if (!result.created) expect(result.existing).toEqual({ id: 99n, name: `name ${winner % 3}` });
  }
  store = await reopen(store);
  expect(await store.list()).toEqual([
    { id: 1n, name: 'before' },
    { id: 99n, name: `name ${winner % 3}` },
  ]);
});

test('answers a duplicate of an id whose write is in flight only after that write is durable', async () => {
  const store = await open();
  const first = store.insert({ id: 3n, name: 'Fern' });
  // Queued behind the first write: it must not answer from the unsynced record.
  await Promise.resolve();
  const second = store.insert({ id: 3n, name: 'Fern' });
  const order: string[] = [];
  await Promise.all([first.then(() => order.push('first')), second.then(() => order.push('second'))]);
  expect(order).toEqual(['first', 'second']);
  expect(await second).toEqual({ created: false, existing: { id: 3n, name: 'Fern' } });
  expect(store.stats().syncs).toBe(1);
});

test('group-commits 200 concurrent inserts into far fewer fsyncs than inserts', async () => {
  let store = await open();
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => store.insert({ id: BigInt(i), name: `plant ${i}` })),
  );
  expect(results.every((r) => r.created)).toBe(true);
  const stats = store.stats();
  expect(stats.records).toBe(200);
  expect(stats.syncs).toBeLessThanOrEqual(10);
  expect(stats.writes).toBe(stats.syncs);
  store = await reopen(store);
  expect(await store.size()).toBe(200);
});

test('batches inserts that arrive while a sync is in flight into the next single write', async () => {
  const store = await open();
  const first = store.insert({ id: 0n, name: 'alone' });
  // Let the first batch reach its write before the others arrive.
  await new Promise((resolve) => setImmediate(resolve));
  const rest = Array.from({ length: 99 }, (_, i) => store.insert({ id: BigInt(i + 1), name: 'later' }));
  await Promise.all([first, ...rest]);
  expect(store.stats()).toEqual({ records: 100, writes: 2, syncs: 2 });
});

test('inserts made by separate callbacks of one event-loop turn share one write', async () => {
  const store = await open();
  // Two immediates run in one check phase, each as its own callback with the microtasks drained in
  // between: like two requests read in one poll phase. Neither may go out alone. (Not two timers due
  // at once: Node may run those in two turns.)
  const inserts = await new Promise<Array<Promise<unknown>>>((resolve) => {
    const made: Array<Promise<unknown>> = [];
    setImmediate(() => made.push(store.insert({ id: 1n, name: 'first' })));
    setImmediate(() => {
      made.push(store.insert({ id: 2n, name: 'second' }));
      resolve(made);
    });
  });
  await Promise.all(inserts);
  expect(store.stats()).toEqual({ records: 2, writes: 1, syncs: 1 });
});

test('holds the next batch for the clients the last write answered, so a closed loop shares one write per round though its clients come back on different turns', async () => {
  const store = await open();
  const rounds = 10;
  // Client i sends its next create i % 3 event-loop turns after its answer, as answers reach clients
  // over a network one after another, not all in one tick.
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let round = 0; round < rounds; round++) {
        await store.insert({ id: BigInt(round * 8 + client), name: `client ${client}` });
        for (let turn = 0; turn < client % 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  const { records, writes } = store.stats();
  expect(records).toBe(80);
  // One write per round; a round whose hold ran out (REJOIN_WAIT_MS, on a busy machine) splits in two.
  // Without the hold the clients that come back later always miss their round's write: ~2 per round.
  expect(writes).toBeLessThanOrEqual(rounds + 4);
});

test('writes a create the held batch waited for when the clients it answered do not come back', async () => {
  const store = await open();
  await Promise.all(Array.from({ length: 5 }, (_, i) => store.insert({ id: BigInt(i), name: 'burst' })));
  // The batch after a write of five waits for five creates; only this one comes. Its hold ends by its
  // timer (REJOIN_WAIT_MS): were it to wait for the missing four, this insert would never resolve.
  await store.insert({ id: 99n, name: 'alone after the burst' });
  expect(store.stats()).toEqual({ records: 6, writes: 2, syncs: 2 });
});

test('writes a batch larger than its kept buffer whole, and the batches after it intact', async () => {
  let store = await open();
  // ~1,000 records of 3-byte characters: one batch of far more than the 64 KiB buffer kept for batches.
  const name = '€'.repeat(60);
  const big = Array.from({ length: 1000 }, (_, i) => ({ id: BigInt(i), name, tag: '🌱' }));
  await Promise.all(big.map((plant) => store.insert(plant)));
  expect(store.stats().writes).toBeLessThanOrEqual(2);
  await store.insert({ id: 1000n, name: 'small, after' });
  await store.insert({ id: 1001n, name: 's' });
  store = await reopen(store);
  expect(store.recovery.truncatedBytes).toBe(0);
  expect(await store.size()).toBe(1002);
  expect(await store.get(999n)).toEqual({ id: 999n, name, tag: '🌱' });
  expect(await store.get(1001n)).toEqual({ id: 1001n, name: 's' });
  expect(written().subarray(-200).toString()).toMatch(/}\n[0-9a-f]{8} [0-9a-f]{12} {"id":"1001","name":"s"}\n$/);
});

async function threePlantLog(): Promise<{ bytes: Buffer; lastStart: number }> {
  const store = await open();
  await store.insert({ id: 1n, name: 'one' });
  await store.insert({ id: 2n, name: 'two', tag: 't' });
  await store.insert({ id: 3n, name: 'three', tag: 'the last record' });
  await store.close();
  opened.splice(opened.indexOf(store), 1);
  const bytes = fs.readFileSync(file);
  return { bytes, lastStart: bytes.length - encodePlant({ id: 3n, name: 'three', tag: 'the last record' }, 0).length };
}

test('cuts away the last record torn at every byte offset, keeping the others and accepting new ones', async () => {
  const { bytes, lastStart } = await threePlantLog();
  for (let cut = lastStart + 1; cut < bytes.length; cut++) {
    fs.writeFileSync(file, bytes.subarray(0, cut));
    const store = await openFileStore({ path: file });
    try {
      expect(store.recovery).toMatchObject({ truncatedBytes: cut - lastStart, truncatedAt: lastStart });
      expect(await store.list()).toEqual([
        { id: 1n, name: 'one' },
        { id: 2n, name: 'two', tag: 't' },
      ]);
      expect(written().length).toBe(lastStart);
      await store.insert({ id: 4n, name: 'after the cut' });
    } finally {
      await store.close();
    }
    const again = await openFileStore({ path: file });
    expect((await again.list()).map((p) => p.id)).toEqual([1n, 2n, 4n]);
    await again.close();
  }
});

test('cuts away a last record whose checksum does not match', async () => {
  const { bytes, lastStart } = await threePlantLog();
  const damaged = Buffer.from(bytes);
  damaged[lastStart + 20] = damaged[lastStart + 20]! ^ 0x01;
  fs.writeFileSync(file, damaged);
  const store = await open();
  expect(store.recovery).toMatchObject({ truncatedAt: lastStart, reason: 'checksum mismatch' });
  expect(await store.size()).toBe(2);
});

test('cuts away garbage appended after the last whole record, with or without zeros after it', async () => {
  const { bytes } = await threePlantLog();
  const tails = [Buffer.from('not a record\nneither {"id":"9","name":"x"}\n\n'), Buffer.from('0000000 {"id":"9"}')];
  for (const tail of tails) {
    for (const zeros of [0, 5000]) {
      fs.writeFileSync(file, Buffer.concat([bytes, tail, Buffer.alloc(zeros)]));
      const store = await openFileStore({ path: file });
      expect(store.recovery).toMatchObject({ truncatedBytes: tail.length, truncatedAt: bytes.length });
      expect(await store.size()).toBe(3);
      await store.close();
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    }
  }
});

test('cuts away a record torn in the middle of preallocated zeros, keeping the others', async () => {
  const { bytes, lastStart } = await threePlantLog();
  // An in-place batch write cut short: part of a record, then the zeros it was writing over.
  for (const cut of [lastStart + 1, lastStart + 12, bytes.length - 1]) {
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, cut), Buffer.alloc(PREALLOCATE_CHUNK - cut)]));
    const store = await openFileStore({ path: file });
    expect(store.recovery).toMatchObject({ truncatedBytes: cut - lastStart, truncatedAt: lastStart });
    expect((await store.list()).map((p) => p.id)).toEqual([1n, 2n]);
    await store.insert({ id: 4n, name: 'after the cut' });
    await store.close();
    expect(
      fs
        .readFileSync(file)
        .equals(
          Buffer.concat([bytes.subarray(0, lastStart), encodePlant({ id: 4n, name: 'after the cut' }, lastStart)]),
        ),
    ).toBe(true);
  }
});

test('reads a zero-filled tail as unused space: reopens with every record and appends after the last one', async () => {
  const { bytes } = await threePlantLog();
  // A whole preallocated chunk, and one whose zero-filling a crash cut short.
  for (const zeros of [PREALLOCATE_CHUNK, 123_457]) {
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.alloc(zeros)]));
    const store = await openFileStore({ path: file });
    expect(store.recovery).toEqual({ plants: 3, truncatedBytes: 0, created: false });
    expect(await store.size()).toBe(3);
    await store.insert({ id: 4n, name: 'next' });
    await store.close();
    expect(
      fs.readFileSync(file).equals(Buffer.concat([bytes, encodePlant({ id: 4n, name: 'next' }, bytes.length)])),
    ).toBe(true);
  }
});

test('recovers every record from a file copied while the store was open, as a crash leaves it', async () => {
  const store = await open();
  await Promise.all(PLANTS.map((plant) => store.insert(plant)));
  await store.insert({ id: 5n, name: 'last' });
  const crashed = path.join(dir, 'crashed.log');
  fs.copyFileSync(file, crashed);
  const logical = written();
  // The copy carries the preallocated zeros after the last record.
  expect(fs.statSync(crashed).size).toBeGreaterThan(logical.length);
  const recovered = await openFileStore({ path: crashed });
  try {
    expect(recovered.recovery).toEqual({ plants: 5, truncatedBytes: 0, created: false });
    expect(await recovered.list()).toEqual([...PLANTS, { id: 5n, name: 'last' }]);
    await recovered.insert({ id: 6n, name: 'after the crash' });
  } finally {
    await recovered.close();
  }
  expect(
    fs
      .readFileSync(crashed)
      .equals(Buffer.concat([logical, encodePlant({ id: 6n, name: 'after the crash' }, logical.length)])),
  ).toBe(true);
});

test('zero-fills the file ahead of its last record while open, and close cuts it back to that record', async () => {
  const store = await open();
  await store.insert({ id: 1n, name: 'Fern' });
  await store.insert({ id: 2n, name: 'Moss' });
  const logical = logOf([{ id: 1n, name: 'Fern' }], [{ id: 2n, name: 'Moss' }]);
  expect(written().equals(logical)).toBe(true);
  expect(fs.statSync(file).size).toBeGreaterThanOrEqual(logical.length + PREALLOCATE_CHUNK);
  await store.close();
  expect(fs.readFileSync(file).equals(logical)).toBe(true);
});

test('keeps records contiguous across many zero-filled chunks, whatever the batches', async () => {
  // Chunks smaller than a batch: batches wait for the zero-filling, cross chunk ends and append.
  const store = await FileStoreEngine.open(file, NODE_IO, { preallocate: 256 });
  const expected: Array<{ id: bigint; name: string }> = [];
  const rounds: Array<Array<{ id: bigint; name: string }>> = [];
  for (let round = 0; round < 20; round++) {
    const batch = Array.from({ length: round % 5 === 0 ? 30 : 1 + (round % 3) }, (_, i) => ({
      id: BigInt(round * 100 + i),
      name: `plant ${round}.${i}`,
    }));
    expected.push(...batch);
    rounds.push(batch);
    await Promise.all(batch.map((plant) => store.insert(plant)));
  }
  await store.close();
  const bytes = fs.readFileSync(file);
  // Each round's inserts went out as one batch, whose records all name its first byte.
  expect(bytes.equals(logOf(...rounds))).toBe(true);
  const reopened = await open();
  expect(await reopened.list()).toEqual(expected);
});

test('refuses zeroed records before intact ones, even with zeros after the last record', async () => {
  const { bytes } = await threePlantLog();
  const secondStart = HEADER_LINE.length + encodePlant({ id: 1n, name: 'one' }, 0).length;
  const damaged = Buffer.concat([bytes, Buffer.alloc(8192)]);
  // Zeroed up to its newline, so the intact third record is the next line: it is a later batch,
  // written only once the zeroed one was acknowledged.
  damaged.fill(0, secondStart, secondStart + encodePlant({ id: 2n, name: 'two', tag: 't' }, 0).length - 1);
  fs.writeFileSync(file, damaged);
  await expect(openFileStore({ path: file })).rejects.toMatchObject({ code: 'corrupt', offset: secondStart });
  expect(fs.readFileSync(file).equals(damaged)).toBe(true);
});

test('refuses to start on damage before intact records, naming the file and the byte offset, and leaves the file alone', async () => {
  const { bytes } = await threePlantLog();
  const secondStart = HEADER_LINE.length + encodePlant({ id: 1n, name: 'one' }, 0).length;
  const damaged = Buffer.from(bytes);
  damaged[secondStart + 15] = 0x58;
  fs.writeFileSync(file, damaged);
  const error = await openFileStore({ path: file }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FileStoreError);
  expect(error).toMatchObject({ code: 'corrupt', offset: secondStart, path: file });
  expect((error as Error).message).toContain(file);
  expect((error as Error).message).toContain(`byte ${secondStart}`);
  expect(fs.readFileSync(file).equals(damaged)).toBe(true);
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

const EARLIER: Plant[][] = [
  [{ id: 1n, name: 'one' }],
  [
    { id: 2n, name: 'two', tag: 't' },
    { id: 3n, name: 'three' },
  ],
];
const LAST: Plant[] = Array.from({ length: 10 }, (_, i) => ({ id: BigInt(10 + i), name: `last batch ${i}` }));

/** Writes `batches` through a store, one batch each, and checks it wrote exactly `logOf(...batches)`. */
async function writeBatches(...batches: Plant[][]): Promise<Buffer> {
  const store = await openFileStore({ path: file });
  for (const batch of batches) await Promise.all(batch.map((plant) => store.insert(plant)));
  await store.close();
  const bytes = fs.readFileSync(file);
  expect(bytes.equals(logOf(...batches))).toBe(true);
  return bytes;
}

test('cuts away a whole last batch torn with a hole in its first half and intact records after it, keeps every earlier record, and appends after', async () => {
  const bytes = await writeBatches(...EARLIER, LAST);
  const offsets = offsetsOf(...EARLIER, LAST);
  const start = offsets[3]!; // the last batch's first byte
  const holes: Array<[from: number, to: number, fill: number]> = [
    [start, offsets[5]! + 7, 0], // its first lines never reached the disk
    [offsets[4]! + 3, offsets[7]! + 1, 0], // a block in its middle: intact records of it on both sides
    [start + 20, start + 4096, 0], // everything but the last records (a later block kept)
    [offsets[5]!, offsets[6]! - 1, 0x41], // garbage, not zeros, in its first half
  ];
  for (const [from, to, fill] of holes) {
    const torn = Buffer.concat([bytes, Buffer.alloc(PREALLOCATE_CHUNK)]);
    torn.fill(fill, from, Math.min(to, offsets[9]! - 1));
    fs.writeFileSync(file, torn);
    const store = await openFileStore({ path: file });
    try {
      expect(store.recovery).toMatchObject({ plants: 3, truncatedAt: start, truncatedBytes: bytes.length - start });
      expect(store.recovery.reason).toContain('torn last batch');
      expect(await store.list()).toEqual(EARLIER.flat());
      expect(written().equals(bytes.subarray(0, start))).toBe(true);
      await store.insert({ id: 99n, name: 'after the cut' });
    } finally {
      await store.close();
    }
    expect(
      fs
        .readFileSync(file)
        .equals(Buffer.concat([bytes.subarray(0, start), encodePlant({ id: 99n, name: 'after the cut' }, start)])),
    ).toBe(true);
    const again = await openFileStore({ path: file });
    expect(again.recovery).toMatchObject({ plants: 4, truncatedBytes: 0 });
    expect((await again.list()).map((p) => p.id)).toEqual([1n, 2n, 3n, 99n]);
    await again.close();
  }
});

test('cuts away a torn first batch, right after the header', async () => {
  const bytes = await writeBatches(LAST);
  const offsets = offsetsOf(LAST);
  const torn = Buffer.from(bytes);
  torn.fill(0, HEADER_LINE.length, offsets[2]! + 5);
  fs.writeFileSync(file, torn);
  const store = await open();
  expect(store.recovery).toMatchObject({
    plants: 0,
    truncatedAt: HEADER_LINE.length,
    truncatedBytes: bytes.length - HEADER_LINE.length,
  });
  await store.insert({ id: 1n, name: 'first' });
  expect((await (await reopen(store)).list()).map((p) => p.id)).toEqual([1n]);
});

test('refuses a hole in an earlier batch followed by records of two later batches, naming the offset', async () => {
  const batches = [...EARLIER, [{ id: 4n, name: 'four' }], [{ id: 5n, name: 'five' }]];
  const bytes = await writeBatches(...batches);
  const offsets = offsetsOf(...batches);
  // Record 2 (the start of batch 2) and part of record 3; then batches 3 and 4, whole.
  for (const [from, to] of [
    [offsets[1]!, offsets[2]! + 10],
    [offsets[1]! + 12, offsets[2]! - 1],
    [offsets[2]!, offsets[3]! - 1],
  ] as const) {
    const damaged = Buffer.concat([bytes, Buffer.alloc(4096)]);
    damaged.fill(0, from, to);
    fs.writeFileSync(file, damaged);
    const offset = from === offsets[2]! ? offsets[2]! : offsets[1]!;
    const error = await openFileStore({ path: file }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'corrupt', offset, path: file });
    expect((error as Error).message).toContain(`byte ${offset}`);
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
  }
});

test('refuses a record whose newline alone is damaged, between intact records, even inside the last batch', async () => {
  const bytes = await writeBatches(...EARLIER, LAST);
  const offsets = offsetsOf(...EARLIER, LAST);
  // The second-to-last record of the last batch, and the last record before that batch: a torn write
  // cannot leave every byte of a record but its newline, so each is damage to a whole write.
  for (const record of [11, 2]) {
    for (const byte of [0x00, 0x0b, 0x78]) {
      const damaged = Buffer.concat([bytes, Buffer.alloc(4096)]);
      damaged[offsets[record + 1]! - 1] = byte;
      fs.writeFileSync(file, damaged);
      const error = await openFileStore({ path: file }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'corrupt', offset: offsets[record], path: file });
      expect((error as Error).message).toContain(
        `the newline ending this record, at byte ${offsets[record + 1]! - 1}, is damaged`,
      );
      expect(fs.readFileSync(file).equals(damaged)).toBe(true);
    }
  }
});

test('refuses damage that runs without a newline into an intact record of a later batch', async () => {
  const batches = [...EARLIER, [{ id: 4n, name: 'four' }], [{ id: 5n, name: 'five' }]];
  const bytes = await writeBatches(...batches);
  const offsets = offsetsOf(...batches);
  // Record 4 (its own batch, acknowledged before batch 5 was written) is garbage up to and with its
  // newline, so that the intact last record stands inside the damaged line.
  const damaged = Buffer.concat([bytes, Buffer.alloc(4096)]);
  damaged.fill(0x41, offsets[3]!, offsets[4]!);
  fs.writeFileSync(file, damaged);
  const error = await openFileStore({ path: file }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'corrupt', offset: offsets[3], path: file });
  expect((error as Error).message).toContain(`of a batch at byte ${offsets[4]}, which starts after the damage`);
  expect(fs.readFileSync(file).equals(damaged)).toBe(true);
});

test('cuts a whole last batch torn by a hole that runs without a newline into its own last record', async () => {
  const bytes = await writeBatches(...EARLIER, LAST);
  const offsets = offsetsOf(...EARLIER, LAST);
  const torn = Buffer.concat([bytes, Buffer.alloc(4096)]);
  torn.fill(0, offsets[5]! + 3, offsets[12]!);
  fs.writeFileSync(file, torn);
  const store = await open();
  expect(store.recovery).toMatchObject({
    plants: 3,
    truncatedAt: offsets[3],
    truncatedBytes: bytes.length - offsets[3]!,
  });
  expect(store.recovery.reason).toContain('torn last batch');
});

/** Ids of every kind replay reads: short ones as numbers, 16 digits and up as BigInt, negative, past 2^53 and 2^62, the int64 bounds. */
function replayPlant(i: number, label: string): Plant {
  const id = [
    BigInt(i),
    -BigInt(i) - 1n,
    999_999_999_999_999n - BigInt(i), // 15 digits
    -(10n ** 15n) - BigInt(i), // 16 digits, negative
    2n ** 53n + BigInt(i),
    2n ** 62n + BigInt(i),
    -(2n ** 63n) + BigInt(i),
    2n ** 63n - 1n - BigInt(i),
  ][i % 8]!;
  return i % 3 === 0 ? { id, name: `${label} ${i}`, tag: `t${i}` } : { id, name: `${label} ${i}` };
}

test('cuts a torn last batch of more than 1024 records: every earlier plant intact, big and negative ids exact, the cut ids free again', async () => {
  // 1500 earlier plants in two batches, then a last batch of 1300: the cut falls inside a chunk of
  // 1024 that the last batch had filled, across a whole later chunk.
  const earlier = [
    Array.from({ length: 700 }, (_, i) => replayPlant(i, 'kept')),
    Array.from({ length: 800 }, (_, i) => replayPlant(700 + i, 'kept')),
  ];
  const last = Array.from({ length: 1300 }, (_, i) => replayPlant(1500 + i, 'cut'));
  const bytes = logOf(...earlier, last);
  const offsets = offsetsOf(...earlier, last);
  const start = offsets[1500]!;
  const torn = Buffer.concat([bytes, Buffer.alloc(4096)]);
  // A hole in its middle, with intact records of it after the hole.
  torn.fill(0, offsets[1500 + 1100]! + 3, offsets[1500 + 1150]!);
  fs.writeFileSync(file, torn);
  const store = await open();
  expect(store.recovery).toMatchObject({ plants: 1500, truncatedAt: start, truncatedBytes: bytes.length - start });
  expect(store.recovery.reason).toContain('torn last batch');
  expect(await store.list()).toEqual(earlier.flat());
  for (const plant of earlier.flat()) expect(await store.get(plant.id)).toEqual(plant);
  for (const plant of last) expect(await store.get(plant.id)).toBeUndefined();
  expect(await store.size()).toBe(1500);
  // The cut ids are free: they go in again, under other names, after the kept plants.
  const again = last.map((plant, i) => ({ id: plant.id, name: `again ${i}` }));
  for (const plant of again) expect(await store.insert(plant)).toEqual({ created: true });
  for (const plant of earlier.flat())
    expect(await store.insert({ ...plant, name: 'taken' })).toEqual({ created: false, existing: plant });
  expect(await store.list()).toEqual([...earlier.flat(), ...again]);
  const reopened = await reopen(store);
  expect(reopened.recovery).toMatchObject({ plants: 2800, truncatedBytes: 0 });
  expect(await reopened.list()).toEqual([...earlier.flat(), ...again]);
  for (const plant of again) expect(await reopened.get(plant.id)).toEqual(plant);
});

test('replays ids of every length and sign exactly, and still refuses an id stored twice', async () => {
  const plants = Array.from({ length: 64 }, (_, i) => replayPlant(i, 'plant'));
  fs.writeFileSync(file, logOf(plants.slice(0, 30), plants.slice(30)));
  const store = await open();
  expect(await store.list()).toEqual(plants);
  for (const plant of plants) expect(await store.get(plant.id)).toEqual(plant);
  for (const id of [1_000_000_000_000_000n, -999_999_999_999_999n, 2n ** 53n - 1n, 2n ** 62n - 1n])
    expect(await store.get(id)).toBeUndefined();
  await store.close();
  for (const twice of [plants[3]!, plants[5]!, plants[6]!]) {
    const log = logOf(plants, [{ id: twice.id, name: 'again' }]);
    fs.writeFileSync(file, log);
    await expect(openFileStore({ path: file })).rejects.toMatchObject({
      code: 'corrupt',
      offset: offsetsOf(plants, [twice])[plants.length],
    });
  }
});

test('refuses an id outside int64 with a RangeError, writing nothing, rather than a log that replay would refuse', async () => {
  const store = await open();
  await store.insert({ id: 1n, name: 'one' });
  for (const id of [2n ** 63n, -(2n ** 63n) - 1n, 2n ** 64n + 1n])
    await expect(store.insert({ id, name: 'wrapped' })).rejects.toThrow(RangeError);
  expect(await store.list()).toEqual([{ id: 1n, name: 'one' }]);
  expect(await (await reopen(store)).list()).toEqual([{ id: 1n, name: 'one' }]);
});

test('refuses a plant of the wrong shape with the same TypeErrors as the memory store, writing nothing', async () => {
  const store = await open();
  await store.insert({ id: 1n, name: 'one' });
  for (const [plant, message] of [
    [
      { id: '7', name: 'a' },
      'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got "7"',
    ],
    [
      { id: 1.5, name: 'a' },
      'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got 1.5',
    ],
    [{ id: 2n, name: 5 }, 'plant name must be a string; got 5'],
    [{ id: 2n, name: 'a', tag: null }, 'plant tag must be a string when present; got null'],
    [null, "a plant must be an object with the spec's fields; got null"],
  ] as const) {
    await expect(store.insert(plant as never)).rejects.toThrow(new TypeError(message));
  }
  // A safe integer number is kept as the bigint id a request would have made.
  expect(await store.insert({ id: 3, name: 'three' } as never)).toEqual({ created: true });
  expect(await (await reopen(store)).list()).toEqual([
    { id: 1n, name: 'one' },
    { id: 3n, name: 'three' },
  ]);
});

test('refuses a record that names a batch other than the one it is in', async () => {
  const bytes = await writeBatches(...EARLIER);
  const offsets = offsetsOf(...EARLIER);
  // Record 3 claims to start a batch of its own, though it follows record 2 of batch 2.
  const moved = Buffer.concat([bytes.subarray(0, offsets[2]!), encodePlant({ id: 3n, name: 'three' }, offsets[0]!)]);
  fs.writeFileSync(file, moved);
  await expect(openFileStore({ path: file })).rejects.toMatchObject({ code: 'corrupt', offset: offsets[2] });
});

test('refuses a plant store log of another format version, naming it, and leaves it untouched', async () => {
  const header = '00000000 {"format":"plant-store-log","version":1}\n';
  const line = Buffer.from(header);
  // A correct checksum, so the file is read as a log header and its version is what gets refused.
  line.write(
    zlib
      .crc32(line.subarray(9, line.length - 1))
      .toString(16)
      .padStart(8, '0'),
    0,
    'latin1',
  );
  fs.writeFileSync(file, line);
  await expect(openFileStore({ path: file })).rejects.toMatchObject({
    code: 'unsupported',
    message: expect.stringContaining('format version 1'),
  });
  expect(fs.readFileSync(file).equals(line)).toBe(true);
});

test('refuses a file that is not a plant store log and leaves it untouched', async () => {
  fs.writeFileSync(file, 'my notes\n');
  await expect(openFileStore({ path: file })).rejects.toMatchObject({
    code: 'unsupported',
    message: `${file} is not a plant store data file (it does not start with the plant-store-log header); refusing to touch it. Point --data at a new file or at an existing plant store log.`,
  });
  expect(fs.readFileSync(file, 'utf8')).toBe('my notes\n');
});

test("opens a file whose header was torn by a crash at creation as an empty store, this build's header or a version-2 one", async () => {
  for (const header of [HEADER_LINE, V2_HEADER_LINE]) {
    for (const length of [11, header.length - 1]) {
      fs.writeFileSync(file, header.subarray(0, length));
      const store = await openFileStore({ path: file });
      expect(store.recovery).toMatchObject({ plants: 0, created: false });
      await store.insert({ id: 1n, name: 'Fern' });
      await store.close();
      expect(fs.readFileSync(file).subarray(0, HEADER_LINE.length).equals(HEADER_LINE)).toBe(true);
      expect(await (await open()).size()).toBe(1);
      await opened.pop()!.close();
    }
  }
});

test('refuses a second store on the same file in the same process', async () => {
  await open();
  await expect(openFileStore({ path: file })).rejects.toMatchObject({ code: 'locked' });
});

test('refuses a file locked by a live process, naming its pid, and takes the lock over once it is dead', async () => {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
  try {
    fs.writeFileSync(`${file}.lock`, `${holder.pid}\n`);
    const error = await openFileStore({ path: file }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'locked' });
    expect((error as Error).message).toContain(`is in use by process ${holder.pid}`);
  } finally {
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
  }
  await open();
  expect(fs.readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid));
});

test('takes over a stale lock left by a killed process', async () => {
  let store = await open();
  await store.insert({ id: 1n, name: 'Fern' });
  await store.close();
  opened.splice(0);
  fs.writeFileSync(`${file}.lock`, `${deadPid()}\n`);
  store = await open();
  expect(await store.size()).toBe(1);
});

test('takes over a lock file that never received a pid', async () => {
  fs.writeFileSync(`${file}.lock`, '');
  const store = await open();
  expect(fs.readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid));
  await store.close();
  opened.splice(0);
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
});

test('close finishes inserts already accepted, then unlocks', async () => {
  let store = await open();
  const inserts = Array.from({ length: 20 }, (_, i) => store.insert({ id: BigInt(i), name: 'x' }));
  await store.close();
  await expect(Promise.all(inserts)).resolves.toHaveLength(20);
  expect(fs.existsSync(`${file}.lock`)).toBe(false);
  await expect(store.insert({ id: 100n, name: 'late' })).rejects.toMatchObject({ code: 'closed' });
  opened.splice(0);
  store = await open();
  expect(await store.size()).toBe(20);
});

test('clear empties the store on disk, and later inserts survive a reopen', async () => {
  let store = await open();
  await store.insert({ id: 1n, name: 'gone' });
  await store.clear();
  expect(await store.size()).toBe(0);
  expect(fs.readFileSync(file).equals(HEADER_LINE)).toBe(true);
  await store.insert({ id: 1n, name: 'new' });
  store = await reopen(store);
  expect(await store.list()).toEqual([{ id: 1n, name: 'new' }]);
});

function ioError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated`), { code });
}

test('after a failed fdatasync, rejects that batch and every later write, and a restart replays what was synced', async () => {
  let syncs = 0;
  const io: FileStoreIo = {
    ...NODE_IO,
    fdatasync: async (fd) => {
      if (++syncs === 2) throw ioError('EIO');
      return NODE_IO.fdatasync(fd);
    },
  };
  const store = await FileStoreEngine.open(file, io, { dsync: false, preallocate: 0 });
  await store.insert({ id: 1n, name: 'synced' });
  const failed = await store.insert({ id: 2n, name: 'sync failed' }).catch((e: unknown) => e);
  expect(failed).toMatchObject({ code: 'io', path: file });
  expect((failed as Error).message).toContain('EIO');
  await expect(store.insert({ id: 3n, name: 'later' })).rejects.toMatchObject({ code: 'io' });
  // Fail-stop, as the README says: a replay of the synced plant and a read fail too until a restart.
  await expect(store.insert({ id: 1n, name: 'synced' })).rejects.toMatchObject({ code: 'io' });
  await expect(store.get(1n)).rejects.toMatchObject({ code: 'io' });
  await store.close();
  const reopened = await open();
  expect(reopened.recovery.truncatedBytes).toBe(0);
  expect(await reopened.list()).toEqual([{ id: 1n, name: 'synced' }]);
});

test('after a failed O_DSYNC write, rejects that batch and every later write, and a restart replays what was synced', async () => {
  let writes = 0;
  const io: FileStoreIo = {
    ...NODE_IO,
    write: async (fd, buf, offset, length, position) => {
      const result = await NODE_IO.write(fd, buf, offset, length, position);
      // The bytes reached the page cache, but the sync that O_DSYNC adds to the write failed.
      if (++writes === 2) throw ioError('EIO');
      return result;
    },
  };
  const store = await FileStoreEngine.open(file, io, { preallocate: 0 });
  await store.insert({ id: 1n, name: 'synced' });
  await expect(store.insert({ id: 2n, name: 'sync failed' })).rejects.toMatchObject({ code: 'io' });
  await expect(store.insert({ id: 3n, name: 'later' })).rejects.toMatchObject({ code: 'io' });
  await store.close();
  expect(await (await open()).list()).toEqual([{ id: 1n, name: 'synced' }]);
});

test('group-commits concurrent inserts with write + fdatasync too, where O_DSYNC is not used', async () => {
  let fdatasyncs = 0;
  const io: FileStoreIo = {
    ...NODE_IO,
    fdatasync: (fd) => {
      fdatasyncs++;
      return NODE_IO.fdatasync(fd);
    },
  };
  const store = await FileStoreEngine.open(file, io, { dsync: false, preallocate: 0 });
  await Promise.all(Array.from({ length: 200 }, (_, i) => store.insert({ id: BigInt(i), name: 'x' })));
  expect(store.stats().syncs).toBe(fdatasyncs);
  expect(fdatasyncs).toBeLessThanOrEqual(10);
  await store.close();
  expect(await (await open()).size()).toBe(200);
});

test('cuts a batch that failed half-written, so the file still ends on a whole record', async () => {
  let writes = 0;
  const io: FileStoreIo = {
    ...NODE_IO,
    write: async (fd, buf, offset, length, position) => {
      if (++writes !== 2) return NODE_IO.write(fd, buf, offset, length, position);
      await NODE_IO.write(fd, buf, offset, Math.floor(length / 2), position);
      throw ioError('ENOSPC');
    },
  };
  const store = await FileStoreEngine.open(file, io, { preallocate: 0 });
  await store.insert({ id: 1n, name: 'whole' });
  await expect(store.insert({ id: 2n, name: 'half written' })).rejects.toMatchObject({ code: 'io' });
  await store.close();
  const reopened = await open();
  expect(reopened.recovery.truncatedBytes).toBe(0);
  expect(await reopened.list()).toEqual([{ id: 1n, name: 'whole' }]);
});

test('finishes a short write before syncing, so the batch lands whole', async () => {
  const io: FileStoreIo = {
    ...NODE_IO,
    write: (fd, buf, offset, length, position) => NODE_IO.write(fd, buf, offset, Math.min(length, 7), position),
  };
  // The zero-filling is written in short pieces too.
  const store = await FileStoreEngine.open(file, io, { preallocate: 512 });
  await Promise.all(PLANTS.map((plant) => store.insert(plant)));
  await store.close();
  expect(await (await open()).list()).toEqual(PLANTS);
});

test('when zero-filling ahead fails with EIO, rejects the next batch and every later write, and a restart replays what was synced', async () => {
  let zeroWrites = 0;
  const io: FileStoreIo = {
    ...NODE_IO,
    write: async (fd, buf, offset, length, position) => {
      // The chunk zero-filled at open lands; the next one, started after the first insert, fails.
      if (buf[offset] === 0 && ++zeroWrites === 2) throw ioError('EIO');
      return NODE_IO.write(fd, buf, offset, length, position);
    },
  };
  const store = await FileStoreEngine.open(file, io, { preallocate: 256 });
  await store.insert({ id: 1n, name: 'synced' });
  expect(zeroWrites).toBe(2);
  // A batch written while the zero-filling fails stands on its own synced write; the ones after it see the failure.
  await new Promise((resolve) => setImmediate(resolve));
  await expect(store.insert({ id: 2n, name: 'after the failure' })).rejects.toMatchObject({ code: 'io' });
  await expect(store.insert({ id: 3n, name: 'later' })).rejects.toMatchObject({ code: 'io' });
  await store.close();
  expect(await (await open()).list()).toEqual([{ id: 1n, name: 'synced' }]);
});

test('when the disk has no room for zeros ahead, stops preallocating and appends records as before', async () => {
  const io: FileStoreIo = {
    ...NODE_IO,
    write: async (fd, buf, offset, length, position) => {
      if (buf[offset] === 0) throw ioError('ENOSPC');
      return NODE_IO.write(fd, buf, offset, length, position);
    },
  };
  const store = await FileStoreEngine.open(file, io);
  for (let i = 0; i < 5; i++) await store.insert({ id: BigInt(i), name: `plant ${i}` });
  expect(store.stats()).toMatchObject({ records: 5, writes: 5 });
  expect(fs.statSync(file).size).toBe(written().length);
  await store.close();
  expect(await (await open()).size()).toBe(5);
});

// A log of three plants in two batches, byte for byte, each checksum computed by a table-driven CRC-32
// (reflected polynomial 0xedb88320, initial value and final xor 0xffffffff): a log whose checksums such
// a table computed is a valid log, and must open.
const KNOWN_LOG = [
  '414957cf {"format":"plant-store-log","version":2}\n',
  '401b8c34 000000000032 {"id":"1","name":"Fern","tag":"green"}\n',
  '3029e13d 00000000006f {"id":"-9223372036854775808","name":""}\n',
  '838aa471 00000000006f {"id":"9223372036854775807","name":"line\\nbreak \\"quoted\\" \u2028 lone \\ud800","tag":"ü🌱"}\n',
];
const KNOWN_BATCHES = [
  [{ id: 1n, name: 'Fern', tag: 'green' }],
  [
    { id: -(2n ** 63n), name: '' },
    { id: 2n ** 63n - 1n, name: 'line\nbreak "quoted" \u2028 lone \ud800', tag: 'ü🌱' },
  ],
];

test('checksums lines with the standard CRC-32, the one a table-driven CRC-32 computed for a known log', () => {
  // The check value of CRC-32 (ISO-HDLC, as zlib and gzip compute it).
  expect(zlib.crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  for (const line of KNOWN_LOG.map((text) => Buffer.from(text))) {
    const known = Number.parseInt(line.toString('latin1', 0, 8), 16);
    expect(zlib.crc32(line.subarray(9, line.length - 1))).toBe(known);
  }
  // And the store frames those very bytes, under the version-2 header those builds wrote.
  expect(logWith(V2_HEADER_LINE, SPEC, KNOWN_BATCHES).equals(Buffer.from(KNOWN_LOG.join('')))).toBe(true);
});

test('opens a log whose checksums a table-driven CRC-32 computed, replays every plant, and leaves it as it was', async () => {
  const bytes = Buffer.from(KNOWN_LOG.join(''));
  fs.writeFileSync(file, bytes);
  // A build whose fields are version 2's, as the spec's are unless it has grown (then the header would list the new ones).
  const store = await FileStoreEngine.open(file, NODE_IO, { shape: OLDER });
  expect(store.recovery).toEqual({ plants: 3, truncatedBytes: 0, created: false });
  expect(await store.list()).toEqual(KNOWN_BATCHES.flat());
  await store.close();
  expect(fs.readFileSync(file).equals(bytes)).toBe(true);
});
