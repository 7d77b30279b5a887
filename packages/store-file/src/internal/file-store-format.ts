import { crc32 } from 'node:zlib';
import type { StoredPlant } from '@plant-store/core';
import { FileStoreError } from '../file-store-error.js';

// One record per line: 8 lower-case hex digits of the CRC-32 of the rest of the line, a space, 12
// lower-case hex digits of the byte offset at which the record's batch (the one write that carried it)
// starts, a space, the JSON text, "\n". The header line has no batch field: the CRC, a space, the JSON.
// JSON.stringify escapes every control character (and lone surrogates since ES2019), so a record
// never contains a raw newline and every string round-trips exactly.
const NL = 0x0a;
const SP = 0x20;
const PREFIX = 9; // "xxxxxxxx "
const BATCH_DIGITS = 12;
const RECORD_PREFIX = PREFIX + BATCH_DIGITS + 1; // "xxxxxxxx bbbbbbbbbbbb "
/** The largest batch offset 12 hex digits hold (256 TiB). */
const MAX_BATCH = 2 ** (4 * BATCH_DIGITS) - 1;

/** The first line of every log: it says what the file is, so that a wrong `--data` path is refused. */
export const HEADER_JSON = '{"format":"plant-store-log","version":2}';
const FORMAT = 'plant-store-log';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)$/;

const HEX = Buffer.from('0123456789abcdef', 'latin1');

/** Writes the checksum of `target[from, to)` as 8 lower-case hex digits at byte `offset`. */
function writeChecksum(target: Buffer, offset: number, from: number, to: number): void {
  let crc = crc32(target.subarray(from, to));
  for (let i = offset + 7; i >= offset; i--) {
    target[i] = HEX[crc & 0xf]!;
    crc >>>= 4;
  }
}

/**
 * The most bytes {@link writeLine} can need for `json`: UTF-8 takes at most 3 bytes per UTF-16 unit
 * (a surrogate pair, 2 units, takes 4). Summed over a batch, it sizes the batch's buffer without
 * measuring each string twice.
 */
export function lineBound(json: string): number {
  return RECORD_PREFIX + 3 * json.length + 1;
}

/**
 * Writes `json` at byte `offset` of `target` as one checksummed line and returns where the line ends:
 * a record (after the checksum, the batch field from {@link batchField}) when `field` is given, else
 * the header's framing. `target` must hold {@link lineBound} bytes from `offset`.
 */
export function writeLine(target: Buffer, offset: number, json: string, field?: string): number {
  const prefix = field === undefined ? PREFIX : RECORD_PREFIX;
  const end = offset + prefix + target.write(json, offset + prefix, 'utf8');
  target[offset + PREFIX - 1] = SP;
  if (field !== undefined) {
    target.write(field, offset + PREFIX, 'latin1');
    target[offset + RECORD_PREFIX - 1] = SP;
  }
  target[end] = NL;
  writeChecksum(target, offset, offset + PREFIX, end);
  return end + 1;
}

/** `json` framed as one line of its own (the header, or a record with `field`). */
function framed(json: string, field?: string): Buffer {
  const line = Buffer.allocUnsafe(lineBound(json));
  return line.subarray(0, writeLine(line, 0, json, field));
}

/** The header line, framed. */
export const HEADER_LINE = framed(HEADER_JSON);

/** The JSON of a record. The id is written as a decimal string, so no JSON reader can round it. */
export function plantJson(plant: StoredPlant): string {
  const name = JSON.stringify(plant.name);
  return plant.tag === undefined
    ? `{"id":"${plant.id}","name":${name}}`
    : `{"id":"${plant.id}","name":${name},"tag":${JSON.stringify(plant.tag)}}`;
}

/** The batch field of a batch written at byte `offset`: formatted once per batch, not per record. */
export function batchField(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > MAX_BATCH) {
    throw new RangeError(`a batch offset must be between 0 and ${MAX_BATCH}, not ${offset}`);
  }
  return offset.toString(16).padStart(BATCH_DIGITS, '0');
}

/** The log line of `plant`, in the batch written at byte `batchStart`. */
export function encodePlant(plant: StoredPlant, batchStart: number): Buffer {
  return framed(plantJson(plant), batchField(batchStart));
}

/** Why a line is not a record, or the record's JSON value and its batch's offset (0 for the header). */
type Parsed = { ok: true; value: unknown; batch: number } | { ok: false; reason: string };

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** The line from `start` to `end` (its newline); `record` when it carries a batch field (all but the header). */
function parseLine(buf: Buffer, start: number, end: number, record: boolean): Parsed {
  const prefix = record ? RECORD_PREFIX : PREFIX;
  if (end - start < prefix + 2) return { ok: false, reason: 'record too short' };
  let expected = 0;
  for (let i = start; i < start + 8; i++) {
    const digit = hexDigit(buf[i]!);
    if (digit < 0) return { ok: false, reason: 'no checksum' };
    expected = expected * 16 + digit;
  }
  if (buf[start + 8] !== SP) return { ok: false, reason: 'no checksum' };
  if (crc32(buf.subarray(start + PREFIX, end)) !== expected) return { ok: false, reason: 'checksum mismatch' };
  let batch = 0;
  if (record) {
    for (let i = start + PREFIX; i < start + PREFIX + BATCH_DIGITS; i++) {
      const digit = hexDigit(buf[i]!);
      if (digit < 0) return { ok: false, reason: 'no batch field' };
      batch = batch * 16 + digit;
    }
    if (buf[start + RECORD_PREFIX - 1] !== SP) return { ok: false, reason: 'no batch field' };
  }
  try {
    return { ok: true, value: JSON.parse(buf.toString('utf8', start + prefix, end)), batch };
  } catch {
    return { ok: false, reason: 'checksummed record is not JSON' };
  }
}

/** A record's JSON, once {@link checkRecord} has accepted it. */
export interface PlantRecord {
  readonly id: string;
  readonly name: string;
  readonly tag?: string;
}

/** Why `value` is not a plant record, or `undefined` when it is one. */
function checkRecord(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'record is not an object';
  const { id, name, tag } = value as Record<string, unknown>;
  let fields = 0;
  for (const _ in value) fields++;
  if (fields !== (tag === undefined ? 2 : 3)) return 'record has unknown fields';
  if (typeof id !== 'string' || !DECIMAL.test(id)) return 'record id is not a decimal string';
  // Only ids of 19 digits or more can leave int64; skip the BigInt for the rest.
  if (id.length >= 19) {
    const big = BigInt(id);
    if (big < INT64_MIN || big > INT64_MAX) return 'record id is outside int64';
  }
  if (typeof name !== 'string') return 'record name is not a string';
  if (tag !== undefined && typeof tag !== 'string') return 'record tag is not a string';
  return undefined;
}

/** Where a replay puts the records it accepts. */
export interface ReplaySink {
  /** Takes one record; `false` when its id was seen already. */
  add(record: PlantRecord): boolean;
  /** Forgets the records added after the first `size` (a torn last batch that is being cut away). */
  truncate(size: number): void;
}

/** What replaying a log found. */
export interface ScanResult {
  /** How many records were replayed. */
  readonly count: number;
  /** Length of the intact prefix (the log's logical end); the file is cut here when it is longer. */
  readonly end: number;
  /** Length of the file without its all-zero tail (unused preallocated space). */
  readonly used: number;
  /** The header is missing or torn (a new, or cleared-then-crashed, file): write it at byte 0. */
  readonly needsHeader: boolean;
  /** Why the bytes from `end` on were dropped, when any were. */
  readonly tornReason?: string;
}

/** The line's batch offset when it is an intact record, else `undefined`. */
function intactBatch(buf: Buffer, start: number, end: number): number | undefined {
  const parsed = parseLine(buf, start, end, true);
  return parsed.ok && checkRecord(parsed.value) === undefined ? parsed.batch : undefined;
}

/**
 * Where an intact record ends the damaged line `[start, end)`, or -1. A record whose newline
 * was damaged runs into the next one, which is then intact although no line starts at it; so does an
 * intact record after garbage that has no newline. Looked for only after damage: every position that
 * could start a record's prefix is tried, and the last intact one wins (the line ends at its newline).
 */
function embeddedRecord(buf: Buffer, start: number, end: number): number {
  let found = -1;
  for (let offset = start + 1; offset + RECORD_PREFIX + 2 <= end; offset++) {
    if (buf[offset + PREFIX - 1] !== SP || buf[offset + RECORD_PREFIX - 1] !== SP) continue;
    if (intactBatch(buf, offset, end) !== undefined) found = offset;
  }
  return found;
}

const ZERO_BLOCK = Buffer.alloc(64 * 1024);

/** Length of `buf` without its trailing NUL bytes. */
export function usedLength(buf: Buffer): number {
  let end = buf.length;
  // Whole blocks compared natively first: a preallocated tail is megabytes of zeros.
  while (end >= ZERO_BLOCK.length && buf.subarray(end - ZERO_BLOCK.length, end).equals(ZERO_BLOCK)) {
    end -= ZERO_BLOCK.length;
  }
  while (end > 0 && buf[end - 1] === 0) end--;
  return end;
}

function startsWith(buf: Buffer, line: Buffer, length = line.length): boolean {
  return buf.length >= length && buf.subarray(0, length).equals(line.subarray(0, length));
}

function corrupt(path: string, offset: number, what: string): FileStoreError {
  return new FileStoreError(
    'corrupt',
    path,
    `${path} is damaged at byte ${offset} (${what}), so the damage is not a torn last write. Refusing to start so that no stored plant is dropped: restore the file from a backup, or cut it at byte ${offset} to keep the plants before the damage.`,
    { offset },
  );
}

/**
 * Replays a whole log. The engine writes one batch at a time and answers a batch only once its write
 * is durable, so a crash can tear only the last batch, and in any order of its disk blocks: a damaged
 * line may be followed by intact records of that same batch. Every record names the byte
 * offset at which its batch starts, which tells such a tear from damage to acknowledged data:
 *
 * - damage followed by no intact record: a torn tail; cut at the damage;
 * - damage at D followed by intact records that all name one batch, which starts at D (its first
 *   lines are the damaged ones) or is the batch of the last intact record before D (torn in its
 *   middle): that batch is the last write and was never answered; it is cut away whole;
 * - anything else (records of two batches after D, or of a batch that starts after D, or of an
 *   earlier batch): the damage hit records that were acknowledged; refused with the offset;
 * - an intact record whose newline alone is wrong, followed by an intact record: refused, even in the
 *   last batch, since a torn write cannot leave that (see {@link embeddedRecord}).
 */
export function scanLog(buf: Buffer, path: string, sink: ReplaySink): ScanResult {
  if (buf.length === 0) return { count: 0, end: 0, used: 0, needsHeader: true };
  // Zeros after the last written byte are the log's preallocated space, or the rest of a chunk whose
  // zero-filling a crash interrupted: unused, not damage. No record contains a NUL byte (JSON escapes
  // control characters), so trimming them never shortens a record.
  const used = usedLength(buf);
  if (used > 0 && used < HEADER_LINE.length && startsWith(buf, HEADER_LINE, used)) {
    return { count: 0, end: 0, used, needsHeader: true, tornReason: 'torn header' };
  }
  if (!startsWith(buf, HEADER_LINE)) {
    const nl = buf.indexOf(NL);
    const first = parseLine(buf, 0, nl === -1 ? buf.length : nl, false);
    const head = first.ok ? (first.value as { format?: unknown; version?: unknown } | null) : null;
    if (head !== null && typeof head === 'object' && head.format === FORMAT) {
      throw new FileStoreError(
        'unsupported',
        path,
        `${path} is a plant store log of format version ${String(head.version)}; this store reads version 2.`,
      );
    }
    throw new FileStoreError(
      'unsupported',
      path,
      `${path} is not a plant store data file (it does not start with the plant-store-log header); refusing to touch it. Point --data at a new file or at an existing plant store log.`,
    );
  }

  let count = 0;
  let pos = HEADER_LINE.length;
  // The batch of the last intact record, and how many records were replayed before it (what is kept if it is cut).
  let batchStart = -1;
  let countBefore = 0;
  while (pos < used) {
    const nl = buf.indexOf(NL, pos);
    let reason: string;
    if (nl === -1) {
      reason = 'incomplete last record';
    } else {
      const parsed = parseLine(buf, pos, nl, true);
      const problem = parsed.ok ? checkRecord(parsed.value) : parsed.reason;
      if (problem === undefined) {
        const record = (parsed as { value: PlantRecord }).value;
        const batch = (parsed as { batch: number }).batch;
        if (batch === pos) {
          batchStart = pos;
          countBefore = count;
        } else if (batch !== batchStart) {
          throw corrupt(path, pos, `the record names a batch at byte ${batch}, which is not the batch it is in`);
        }
        if (!sink.add(record)) {
          throw new FileStoreError(
            'corrupt',
            path,
            `${path} is damaged at byte ${pos}: id ${record.id} is stored twice, which this store never writes. Refusing to start rather than guess which one is right.`,
            { offset: pos },
          );
        }
        count++;
        pos = nl + 1;
        continue;
      }
      reason = problem;
    }
    // Damage at `pos`: which batches do the intact records after it belong to? The first may stand
    // inside the damaged line itself.
    let after: number | undefined;
    const embedded = nl !== -1 ? embeddedRecord(buf, pos, nl) : -1;
    if (embedded !== -1) {
      // An intact record, then one wrong byte where its newline belongs, then an intact record: a
      // crash cannot leave that (a lost block takes the bytes before the newline with it), so the
      // write was whole, and may have been acknowledged, whichever batch this is.
      if (embedded - 1 > pos && intactBatch(buf, pos, embedded - 1) !== undefined) {
        throw corrupt(
          path,
          pos,
          `the newline ending this record, at byte ${embedded - 1}, is damaged, though the records on both sides of it are intact`,
        );
      }
      after = intactBatch(buf, embedded, nl);
    }
    for (let next = nl === -1 ? -1 : nl + 1; next !== -1 && next < used; ) {
      const nextNl = buf.indexOf(NL, next);
      if (nextNl === -1) break;
      const batch = intactBatch(buf, next, nextNl);
      if (batch !== undefined) {
        if (after !== undefined && batch !== after) {
          throw corrupt(path, pos, `${reason}, and intact records of more than one batch follow it`);
        }
        after = batch;
      }
      next = nextNl + 1;
    }
    if (after === undefined) return { count, end: pos, used, needsHeader: false, tornReason: reason };
    if (after === pos) {
      // The last batch starts at the damage: its first lines were never written.
      return { count, end: pos, used, needsHeader: false, tornReason: `torn last batch (${reason})` };
    }
    if (after === batchStart) {
      // The last batch was torn in its middle: its intact first records go with the rest of it.
      // A batch is the last records replayed, so cutting it is cutting the sink back.
      sink.truncate(countBefore);
      count = countBefore;
      return {
        count,
        end: batchStart,
        used,
        needsHeader: false,
        tornReason: `torn last batch (${reason} at byte ${pos})`,
      };
    }
    throw corrupt(
      path,
      pos,
      `${reason}, and intact records follow it of a batch at byte ${after}, which ${after > pos ? 'starts after the damage' : 'was written before the damaged one'}`,
    );
  }
  return { count, end: pos, used, needsHeader: false };
}
