import type { StoredPlant } from '@plant-store/core';
import { crc32 } from './file-store-crc32.js';
import { FileStoreError } from '../file-store-error.js';

// One record per line: 8 lower-case hex digits of the CRC-32 of the JSON text, a space, the JSON
// text, "\n". JSON.stringify escapes every control character (and lone surrogates since ES2019),
// so a record never contains a raw newline and every string round-trips exactly.
const NL = 0x0a;
const SP = 0x20;
const PREFIX = 9; // "xxxxxxxx "

/** The first line of every log: it says what the file is, so that a wrong `--data` path is refused. */
export const HEADER_JSON = '{"format":"plant-store-log","version":1}';
const FORMAT = 'plant-store-log';
const VERSION = 1;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)$/;

/** `json` framed as one checksummed line. */
export function encodeLine(json: string): Buffer {
  const length = Buffer.byteLength(json);
  const line = Buffer.allocUnsafe(PREFIX + length + 1);
  line.write(json, PREFIX, 'utf8');
  line[PREFIX - 1] = SP;
  line[PREFIX + length] = NL;
  line.write(crc32(line.subarray(PREFIX, PREFIX + length)).toString(16).padStart(8, '0'), 0, 'latin1');
  return line;
}

/** The header line, framed. */
export const HEADER_LINE = encodeLine(HEADER_JSON);

/** The log line of `plant`. The id is written as a decimal string, so no JSON reader can round it. */
export function encodePlant(plant: StoredPlant): Buffer {
  const name = JSON.stringify(plant.name);
  return encodeLine(
    plant.tag === undefined
      ? `{"id":"${plant.id}","name":${name}}`
      : `{"id":"${plant.id}","name":${name},"tag":${JSON.stringify(plant.tag)}}`,
  );
}

/** Why a line is not a record, or the record's JSON value. */
type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function parseLine(buf: Buffer, start: number, end: number): Parsed {
  if (end - start < PREFIX + 2) return { ok: false, reason: 'record too short' };
  let expected = 0;
  for (let i = start; i < start + 8; i++) {
    const digit = hexDigit(buf[i]!);
    if (digit < 0) return { ok: false, reason: 'no checksum' };
    expected = expected * 16 + digit;
  }
  if (buf[start + 8] !== SP) return { ok: false, reason: 'no checksum' };
  const body = buf.subarray(start + PREFIX, end);
  if (crc32(body) !== expected) return { ok: false, reason: 'checksum mismatch' };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
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

function isRecord(buf: Buffer, start: number, end: number): boolean {
  const parsed = parseLine(buf, start, end);
  return parsed.ok && checkRecord(parsed.value) === undefined;
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

/**
 * Replays a whole log. A damaged record followed only by damaged bytes is a torn tail: the last
 * write, cut short by a crash before its fsync, so nothing in it was ever acknowledged; it is
 * reported for truncation. A damaged record followed by an intact one is refused: records after it
 * were fsynced, so the damage hit acknowledged data and dropping it would lose plants silently.
 */
export function scanLog(buf: Buffer, path: string, sink: ReplaySink): ScanResult {
  if (buf.length === 0) return { count: 0, end: 0, used: 0, needsHeader: true };
  // Zeros after the last written byte are the log's preallocated space, or the rest of a chunk whose
  // zero-filling a crash interrupted: unused, not damage. No record contains a NUL byte (JSON escapes
  // control characters), so trimming them never shortens a record.
  const used = usedLength(buf);
  if (used > 0 && used < HEADER_LINE.length && HEADER_LINE.subarray(0, used).equals(buf.subarray(0, used))) {
    return { count: 0, end: 0, used, needsHeader: true, tornReason: 'torn header' };
  }
  if (!buf.subarray(0, HEADER_LINE.length).equals(HEADER_LINE)) {
    const nl = buf.indexOf(NL);
    const first = parseLine(buf, 0, nl === -1 ? buf.length : nl);
    const head = first.ok ? (first.value as { format?: unknown; version?: unknown } | null) : null;
    if (head !== null && typeof head === 'object' && head.format === FORMAT) {
      throw new FileStoreError(
        'unsupported',
        path,
        `${path} is a plant store log of format version ${String(head.version)}; this server reads version ${VERSION}.`,
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
  while (pos < used) {
    const nl = buf.indexOf(NL, pos);
    let reason: string;
    if (nl === -1) {
      reason = 'incomplete last record';
    } else {
      const parsed = parseLine(buf, pos, nl);
      const problem = parsed.ok ? checkRecord(parsed.value) : parsed.reason;
      if (problem === undefined) {
        const record = (parsed as { value: PlantRecord }).value;
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
    for (let next = nl === -1 ? -1 : nl + 1; next !== -1 && next < used; ) {
      const nextNl = buf.indexOf(NL, next);
      if (nextNl === -1) break;
      if (isRecord(buf, next, nextNl)) {
        throw new FileStoreError(
          'corrupt',
          path,
          `${path} is damaged at byte ${pos} (${reason}) and intact records follow it, so the damage is not a torn last write. Refusing to start so that no stored plant is dropped: restore the file from a backup, or cut it at byte ${pos} to keep the plants before the damage.`,
          { offset: pos },
        );
      }
      next = nextNl + 1;
    }
    return { count, end: pos, used, needsHeader: false, tornReason: reason };
  }
  return { count, end: pos, used, needsHeader: false };
}
