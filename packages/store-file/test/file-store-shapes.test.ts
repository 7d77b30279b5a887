// Logs and the plant's shape: records carry the fields the shape has; a build reads a log whose header
// lists fewer fields (version 2 included), and lists its own before it writes; a log it cannot read in
// full (a field it does not know or holds as another kind, a newer format, a value its rules refuse) is
// refused with every byte left in place. Stores of other shapes play the newer and the older build.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { StoredPlant } from '@plant-store/core';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { FileStoreError } from '../src/file-store-error.js';
import { FileStoreEngine } from '../src/internal/file-store-engine.js';
import { batchField, framed } from '../src/internal/file-store-format.js';
import { V2_HEADER_LINE, WRITER } from '../src/internal/file-store-header.js';
import { NODE_IO } from '../src/internal/file-store-io.js';
import { LogCodec, type PlantShape } from '../src/internal/file-store-shape.js';
import { HEADER_LINE, encodePlant, logWith } from './log-bytes.js';
import { NEWER, OLDER, newer } from './shapes.js';

let dir: string;
let file: string;
const opened: FileStoreEngine[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-file-store-shapes-'));
  file = path.join(dir, 'plants.log');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A store on `at` (the test's file by default) of `shape`, closed after the test. */
async function openAs(shape: PlantShape, at = file): Promise<FileStoreEngine> {
  const store = await FileStoreEngine.open(at, NODE_IO, { shape });
  opened.push(store);
  return store;
}

async function close(store: FileStoreEngine): Promise<void> {
  opened.splice(opened.indexOf(store), 1);
  await store.close();
}

function sha256(at: string): string {
  return createHash('sha256').update(fs.readFileSync(at)).digest('hex');
}

/** What opening `at` as `shape` throws, checking that every byte of the file stayed in place and the lock is gone. */
async function refusal(shape: PlantShape, at = file): Promise<FileStoreError> {
  const before = sha256(at);
  const error = await FileStoreEngine.open(at, NODE_IO, { shape }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FileStoreError);
  expect(sha256(at)).toBe(before);
  expect(fs.existsSync(`${at}.lock`)).toBe(false);
  return error as FileStoreError;
}

/** A header line as a build of another version or shape writes one. */
function headerOf(json: object): Buffer {
  return framed(JSON.stringify(json));
}

type Rich = StoredPlant & Readonly<Record<string, unknown>>;

/** Plants of the newer shape: every kind at its edges, optional fields present and absent. */
const RICH: Rich[] = [
  {
    parent: -(2n ** 63n),
    id: 2n ** 63n - 1n,
    name: 'Fern',
    tag: 'shade',
    leaves: 1,
    height: 0.1,
    indoor: true,
    colour: 'green',
    code: 'A-1',
  },
  {
    id: -(2n ** 63n),
    name: 'nul \u0000, lone \ud800 and \udc00, pair 🌱, "quoted" line\nbreak \u2028',
    leaves: 2 ** 31 - 1,
    height: 1e300,
    indoor: false,
    colour: 'variegated',
    code: 'ZZZZZZZZ',
  },
  { parent: 2n ** 63n - 1n, id: 2n ** 53n + 1n, name: 'Moss', height: -1.5 },
  { id: 0n, name: '', tag: '\u0000', height: 5e-324 },
  { id: 7n, name: 'Oak', height: Number.MAX_VALUE, indoor: false },
  { id: 8n, name: 'Ivy' },
];
const ADDED = ['parent', 'leaves', 'height', 'indoor', 'colour', 'code'];
const V2_PLANTS: StoredPlant[][] = [
  [{ id: 1n, name: 'Fern', tag: 'green' }],
  [
    { id: -(2n ** 63n), name: '' },
    { id: 2n ** 63n - 1n, name: 'line\nbreak \u0000 lone \ud800', tag: 'ü🌱' },
  ],
];

async function writeRich(shape: PlantShape = NEWER): Promise<void> {
  const store = await openAs(shape);
  await Promise.all(RICH.slice(0, 3).map((plant) => store.insert(plant)));
  await Promise.all(RICH.slice(3).map((plant) => store.insert(plant)));
  await close(store);
}

test('writes a record from the field table: each present field in the shape order, an int64 as a decimal string, the others as JSON values', () => {
  const codec = new LogCodec(NEWER);
  expect(codec.json(RICH[0]!)).toBe(
    '{"parent":"-9223372036854775808","id":"9223372036854775807","name":"Fern","tag":"shade","leaves":1,"height":0.1,"indoor":true,"colour":"green","code":"A-1"}',
  );
  // The first field absent: the next one opens the object.
  expect(codec.json({ id: 2n, name: 'x', indoor: false } as Rich)).toBe('{"id":"2","name":"x","indoor":false}');
  expect(new LogCodec(OLDER).json({ id: 12n, name: 'Fern', tag: 'green' })).toBe(
    '{"id":"12","name":"Fern","tag":"green"}',
  );
});

test('round-trips every kind exactly through the file: int64 extremes, doubles, booleans, strings with U+0000 and lone surrogates; -0 comes back as 0', async () => {
  await writeRich();
  const store = await openAs(NEWER);
  await store.insert({ id: 9n, name: 'minus zero', height: -0 } as Rich);
  await close(store);
  const reopened = await openAs(NEWER);
  expect(reopened.recovery).toEqual({ plants: RICH.length + 1, truncatedBytes: 0, created: false });
  expect(await reopened.list()).toEqual([...RICH, { id: 9n, name: 'minus zero', height: 0 }]);
  // As the memory store keeps it and the service answers it: JSON's -0 would be a distinction nothing else makes.
  expect(Object.is(((await reopened.get(9n)) as Rich).height, 0)).toBe(true);
  expect(fs.readFileSync(file, 'utf8')).toContain('{"id":"9","name":"minus zero","height":0}\n');
});

test('refuses a log that a build of more fields wrote, naming that build and the fields, with every byte left in place; the newer build then serves every plant', async () => {
  const store = await openAs(NEWER);
  await Promise.all(RICH.map((plant) => store.insert(plant)));
  // As a crash leaves it: the zeros preallocated after the last record are there too.
  const crashed = path.join(dir, 'crashed.log');
  fs.copyFileSync(file, crashed);
  await close(store);
  for (const at of [file, crashed]) {
    const error = await refusal(OLDER, at);
    expect(error.code).toBe('unsupported');
    expect(error.message).toBe(
      `${at} was written by ${WRITER} with fields that this build (${WRITER}) does not read: parent (int64), leaves (int32), height (number), indoor (boolean), colour (string), code (string) are not among its fields, id (int64), name (string), tag (string). Refusing to start, and leaving the file as it is: open it with ${WRITER} or newer.`,
    );
    const again = await openAs(NEWER, at);
    expect(await again.list()).toEqual(RICH);
    for (const plant of RICH) expect(await again.get(plant.id)).toEqual(plant);
    await close(again);
  }
});

test('names the build that its header names, not the one opening it', async () => {
  const writer = '@plant-store/store-file@99.1.0';
  const header = headerOf({
    format: 'plant-store-log',
    version: 3,
    writer,
    fields: [...ADDED, 'id'].map((name) => ({ name, kind: 'int32' })),
  });
  fs.writeFileSync(file, header);
  const error = await refusal(OLDER);
  expect(error.message).toContain(
    `${file} was written by ${writer} with fields that this build (${WRITER}) does not read:`,
  );
  expect(error.message).toContain('id is held as int32 in the file and as int64 here');
  expect(error.message).toMatch(new RegExp(`open it with ${writer.replaceAll('.', '\\.')} or newer\\.$`));
});

test("reads a version-2 log as today's build wrote it with a build of more fields, and lists them in its header before it writes one", async () => {
  const v2 = logWith(V2_HEADER_LINE, new LogCodec(OLDER), V2_PLANTS);
  expect(v2.subarray(0, V2_HEADER_LINE.length).toString()).toBe('414957cf {"format":"plant-store-log","version":2}\n');
  fs.writeFileSync(file, v2);
  const store = await openAs(NEWER);
  expect(store.recovery).toEqual({ plants: 3, truncatedBytes: 0, created: false, addedFields: ADDED });
  expect(await store.list()).toEqual(V2_PLANTS.flat());
  // Every record kept as it was written, each naming its batch's offset under the new header.
  const upgraded = logWith(new LogCodec(NEWER).header, new LogCodec(OLDER), V2_PLANTS);
  expect(fs.readFileSync(file).subarray(0, upgraded.length).equals(upgraded)).toBe(true);
  expect(await store.insert(RICH[2]!)).toEqual({ created: true });
  await close(store);
  expect((await refusal(OLDER)).code).toBe('unsupported');
  expect(await (await openAs(NEWER)).list()).toEqual([...V2_PLANTS.flat(), RICH[2]]);
});

test('lists the new fields in the header of a version-3 log with fewer, keeping every record', async () => {
  const older = await openAs(OLDER);
  for (const batch of V2_PLANTS) await Promise.all(batch.map((plant) => older.insert(plant)));
  await close(older);
  expect(fs.readFileSync(file).equals(logWith(new LogCodec(OLDER).header, new LogCodec(OLDER), V2_PLANTS))).toBe(true);
  const store = await openAs(NEWER);
  expect(store.recovery.addedFields).toEqual(ADDED);
  await close(store);
  expect(fs.readFileSync(file).equals(logWith(new LogCodec(NEWER).header, new LogCodec(OLDER), V2_PLANTS))).toBe(true);
});

test('leaves a version-2 log as version 2 when the fields are the same, appending records as a version-2 build does', async () => {
  const codec = new LogCodec(OLDER);
  fs.writeFileSync(file, logWith(V2_HEADER_LINE, codec, V2_PLANTS));
  const store = await openAs(OLDER);
  expect(store.recovery).toEqual({ plants: 3, truncatedBytes: 0, created: false });
  await store.insert({ id: 9n, name: 'after' });
  await close(store);
  expect(
    fs.readFileSync(file).equals(logWith(V2_HEADER_LINE, codec, [...V2_PLANTS, [{ id: 9n, name: 'after' }]])),
  ).toBe(true);
});

test('cuts the torn tail of a version-2 log as it lists the new fields', async () => {
  const codec = new LogCodec(OLDER);
  const whole = logWith(V2_HEADER_LINE, codec, V2_PLANTS);
  const lastStart = whole.length - encodePlant(V2_PLANTS[1]![1]!, 0, codec).length;
  fs.writeFileSync(file, Buffer.concat([whole.subarray(0, lastStart + 30), Buffer.alloc(4096)]));
  const store = await openAs(NEWER);
  expect(store.recovery).toEqual({
    plants: 2,
    truncatedBytes: 30,
    truncatedAt: lastStart,
    reason: 'incomplete last record',
    created: false,
    addedFields: ADDED,
  });
  await close(store);
  const kept = [V2_PLANTS[0]!, [V2_PLANTS[1]![0]!]];
  expect(fs.readFileSync(file).equals(logWith(new LogCodec(NEWER).header, codec, kept))).toBe(true);
});

test('replaces the header through a new file renamed over the log: a leftover of a crashed rewrite goes, and a symbolic link stays a link', async () => {
  fs.writeFileSync(file, logWith(V2_HEADER_LINE, new LogCodec(OLDER), V2_PLANTS));
  fs.writeFileSync(`${file}.rewrite`, 'half of a copy that a crash interrupted');
  const link = path.join(dir, 'link.log');
  fs.symlinkSync(file, link);
  const store = await openAs(NEWER, link);
  expect(await store.insert(RICH[4]!)).toEqual({ created: true });
  await close(store);
  expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  expect(fs.readdirSync(dir).sort()).toEqual(['link.log', 'plants.log']);
  expect(fs.readFileSync(file).subarray(0, new LogCodec(NEWER).header.length).equals(new LogCodec(NEWER).header)).toBe(
    true,
  );
  expect(await (await openAs(NEWER)).list()).toEqual([...V2_PLANTS.flat(), RICH[4]]);
});

test('leaves the log as it was when its header cannot be replaced, saying so', async () => {
  fs.writeFileSync(file, logWith(V2_HEADER_LINE, new LogCodec(OLDER), V2_PLANTS));
  // Something that is not a leftover file stands where the copy goes.
  fs.mkdirSync(`${file}.rewrite`);
  const error = await refusal(NEWER);
  expect(error).toMatchObject({ code: 'io', path: file });
  expect(error.message).toBe(
    `could not replace the header of ${file} with one that lists ${ADDED.join(', ')} too (writing ${file}.rewrite failed: ERR_FS_EISDIR); the file is as it was, and no plant is written until its header lists every field`,
  );
});

/** A log of the older shape whose record at `index` of `texts` is each JSON text, framed whole, in batches of one. */
function logOfTexts(texts: readonly string[]): { bytes: Buffer; offsets: number[] } {
  const parts = [HEADER_LINE_OLDER];
  const offsets: number[] = [];
  let offset = HEADER_LINE_OLDER.length;
  for (const text of texts) {
    const line = framed(text, batchField(offset));
    offsets.push(offset);
    parts.push(line);
    offset += line.length;
  }
  return { bytes: Buffer.concat(parts), offsets };
}
const HEADER_LINE_OLDER = new LogCodec(OLDER).header;

test('refuses a whole record with a field this build does not know, mid-file, at the tail or after a torn line, and cuts nothing', async () => {
  const unknown = '{"id":"3","name":"Rose","colour":"red"}';
  const plain = (id: number) => `{"id":"${id}","name":"plant ${id}"}`;
  for (const [texts, at] of [
    [[plain(1), unknown, plain(4)], 1],
    [[plain(1), plain(2), unknown], 2],
  ] as const) {
    const { bytes, offsets } = logOfTexts(texts);
    for (const tail of [Buffer.alloc(0), Buffer.alloc(8192)]) {
      fs.writeFileSync(file, Buffer.concat([bytes, tail]));
      const error = await refusal(OLDER);
      expect(error).toMatchObject({ code: 'unsupported', offset: offsets[at], path: file });
      expect(error.message).toBe(
        `${file} holds a record at byte ${offsets[at]} (id 3) that this build (${WRITER}) cannot read: "colour" is not one of this build's fields, id, name, tag. The file's header names ${WRITER}. Refusing to start rather than drop or misread a stored plant, and leaving the file as it is: open it with ${WRITER} or newer, whose fields and rules take this record.`,
      );
    }
  }
  // A torn line before it: the record after the tear was written whole, so it is not cut with it.
  const { bytes, offsets } = logOfTexts([plain(1), plain(2), unknown]);
  const torn = Buffer.from(bytes);
  torn.fill(0x41, offsets[1]! + 25, offsets[2]! - 1);
  fs.writeFileSync(file, torn);
  expect(await refusal(OLDER)).toMatchObject({ code: 'unsupported', offset: offsets[2] });
});

test('still cuts a last record whose checksum fails, whatever fields it holds', async () => {
  const { bytes, offsets } = logOfTexts(['{"id":"1","name":"one"}', '{"id":"3","name":"Rose","colour":"red"}']);
  bytes[offsets[1]! + 30] = bytes[offsets[1]! + 30]! ^ 0x01;
  fs.writeFileSync(file, bytes);
  const store = await openAs(OLDER);
  expect(store.recovery).toMatchObject({ plants: 1, truncatedAt: offsets[1], reason: 'checksum mismatch' });
  await close(store);
  expect(fs.readFileSync(file).equals(bytes.subarray(0, offsets[1]))).toBe(true);
});

test('refuses a record whose values the rules now refuse, naming the record and the rule, with every byte left in place', async () => {
  await writeRich();
  const offset = HEADER_LINE_NEWER.length;
  const error = await refusal(newer(10));
  expect(error).toMatchObject({ code: 'unsupported', offset });
  expect(error.message).toBe(
    `${file} holds a record at byte ${offset} (id 9223372036854775807) that this build (${WRITER}) cannot read: plant leaves must be an integer between 10 and 2147483647 when present; got 1. The file's header names ${WRITER}. Refusing to start rather than drop or misread a stored plant, and leaving the file as it is: open it with ${WRITER} or newer, whose fields and rules take this record.`,
  );
});
const HEADER_LINE_NEWER = new LogCodec(NEWER).header;

test('refuses a whole record this build cannot read, saying why, with every byte left in place', async () => {
  for (const [text, why] of [
    ['[1]', 'the record is not a JSON object'],
    ['{"id":7,"name":"x"}', 'id is not an int64 written as a decimal string'],
    ['{"id":"-07","name":"x"}', 'id is not an int64 written as a decimal string'],
    ['{"id":"12345678901234567890","name":"x"}', 'id is not an int64 written as a decimal string'],
    [
      '{"id":"9223372036854775808","name":"x"}',
      'plant id must be an integer between -9223372036854775808 and 9223372036854775807; got 9223372036854775808',
    ],
    ['{"id":"7"}', 'plant name is required'],
    ['{"id":"7","name":5}', 'plant name must be a string; got 5'],
    ['{"id":"7","name":"x","tag":null}', 'plant tag must be a string when present; got null'],
    ['{"id":"7","name":"x","__proto__":{}}', '"__proto__" is not one of this build\'s fields, id, name, tag'],
  ] as const) {
    const { bytes, offsets } = logOfTexts(['{"id":"1","name":"one"}', text]);
    fs.writeFileSync(file, bytes);
    const error = await refusal(OLDER);
    expect(error).toMatchObject({ code: 'unsupported', offset: offsets[1] });
    expect(error.message).toContain(`holds a record at byte ${offsets[1]}`);
    expect(error.message).toContain(`that this build (${WRITER}) cannot read: ${why}. `);
  }
  // Lines written whole (their checksums hold) but not framed as records this build reads.
  for (const [line, why] of [
    [framed('{"id":"7","name":"x"'), 'the line has no batch field'],
    [framed('{"id":"7","name":"x"', batchField(HEADER_LINE_OLDER.length)), 'the line is not JSON'],
  ] as const) {
    fs.writeFileSync(file, Buffer.concat([HEADER_LINE_OLDER, line]));
    const error = await refusal(OLDER);
    expect(error.message).toBe(
      `${file} holds a record at byte ${HEADER_LINE_OLDER.length} that this build (${WRITER}) cannot read: ${why}. The file's header names ${WRITER}. Refusing to start rather than drop or misread a stored plant, and leaving the file as it is: open it with ${WRITER} or newer, whose fields and rules take this record.`,
    );
  }
});

test('refuses a log of a newer format version, naming its writer and what to run', async () => {
  const writer = '@plant-store/store-file@99.0.0';
  fs.writeFileSync(file, headerOf({ format: 'plant-store-log', version: 4, writer, fields: [] }));
  expect((await refusal(OLDER)).message).toBe(
    `${file} is a plant store log of format version 4, written by ${writer}; this build (${WRITER}) reads versions 2 and 3. Refusing to start, and leaving the file as it is: open it with ${writer} or newer.`,
  );
  fs.writeFileSync(file, headerOf({ format: 'plant-store-log', version: 1 }));
  expect((await refusal(OLDER)).message).toBe(
    `${file} is a plant store log of format version 1; this build (${WRITER}) reads versions 2 and 3. Refusing to start, and leaving the file as it is: open it with the build that wrote it.`,
  );
});

test('refuses a version-3 header that does not name its writer and list its fields', async () => {
  const fields = [{ name: 'id', kind: 'int64' }];
  for (const header of [
    { writer: WRITER },
    { writer: WRITER, fields: {} },
    { writer: WRITER, fields: [{ name: 'id' }] },
    { writer: WRITER, fields: [null] },
    { writer: WRITER, fields: [...fields, ...fields] },
    { fields },
    { writer: 'a writer\nwith a line break', fields },
  ]) {
    fs.writeFileSync(file, headerOf({ format: 'plant-store-log', version: 3, ...header }));
    const error = await refusal(OLDER);
    expect(error).toMatchObject({ code: 'unsupported', path: file });
    expect(error.message).toBe(
      `${file} has a version-3 plant store log header that does not name its writer and list its fields as this build (${WRITER}) reads them. Refusing to start, and leaving the file as it is.`,
    );
  }
});

test("refuses a version-2 log when a field of version 2 is not among the build's fields", async () => {
  fs.writeFileSync(file, logWith(V2_HEADER_LINE, new LogCodec(OLDER), V2_PLANTS));
  const fields = OLDER.fields.filter((field) => field.name !== 'tag');
  const error = await refusal({ ...OLDER, fields });
  expect(error.message).toBe(
    `${file} was written by a build of log format version 2 with fields that this build (${WRITER}) does not read: tag (string) is not among its fields, id (int64), name (string). Refusing to start, and leaving the file as it is: open it with the build that wrote it (log format version 2), or a newer one.`,
  );
});

test('clear starts a version-2 log afresh with the header of its build', async () => {
  fs.writeFileSync(file, logWith(V2_HEADER_LINE, new LogCodec(OLDER), V2_PLANTS));
  const store = await openAs(OLDER);
  await store.clear();
  expect(fs.readFileSync(file).equals(HEADER_LINE_OLDER)).toBe(true);
});

test('writes a header the previous build refuses without changing a byte: a whole checksummed line of the plant-store-log format and version 3, longer than the version-2 line and not starting with it', () => {
  // The previous build reads a header that is not its own version-2 line as a torn one (and writes
  // its own) only when the file is shorter than that line and starts like it; otherwise it refuses
  // a checksummed plant-store-log header of another version, naming it, before it writes anything.
  for (const header of [HEADER_LINE, HEADER_LINE_OLDER, HEADER_LINE_NEWER]) {
    expect(header.length).toBeGreaterThan(V2_HEADER_LINE.length);
    expect(header.subarray(0, V2_HEADER_LINE.length).equals(V2_HEADER_LINE)).toBe(false);
    const text = header.toString('utf8', 9, header.length - 1);
    expect(header.toString('latin1', 0, 9)).toBe(`${zlib.crc32(text).toString(16).padStart(8, '0')} `);
    expect(JSON.parse(text)).toMatchObject({ format: 'plant-store-log', version: 3 });
  }
});
