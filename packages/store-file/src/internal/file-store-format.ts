import { crc32 } from 'node:zlib';

// One record per line: 8 lower-case hex digits of the CRC-32 of the rest of the line, a space, 12
// lower-case hex digits of the byte offset at which the record's batch (the one write that carried it)
// starts, a space, the JSON text, "\n". The header line has no batch field: the CRC, a space, the JSON.
// JSON.stringify escapes every control character (and lone surrogates since ES2019), so a record
// never contains a raw newline and every string round-trips exactly.
export const NL = 0x0a;
const SP = 0x20;
const PREFIX = 9; // "xxxxxxxx "
const BATCH_DIGITS = 12;
const RECORD_PREFIX = PREFIX + BATCH_DIGITS + 1; // "xxxxxxxx bbbbbbbbbbbb "
/** The largest batch offset 12 hex digits hold (256 TiB). */
const MAX_BATCH = 2 ** (4 * BATCH_DIGITS) - 1;

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
export function framed(json: string, field?: string): Buffer {
  const line = Buffer.allocUnsafe(lineBound(json));
  return line.subarray(0, writeLine(line, 0, json, field));
}

/** The batch field of a batch written at byte `offset`: formatted once per batch, not per record. */
export function batchField(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset > MAX_BATCH) {
    throw new RangeError(`a batch offset must be between 0 and ${MAX_BATCH}, not ${offset}`);
  }
  return offset.toString(16).padStart(BATCH_DIGITS, '0');
}

/**
 * What a line of the log is:
 * - `damaged`: its checksum does not hold (a torn write, or damage), so its bytes say nothing;
 * - `unreadable`: its checksum holds, so it was written whole, but not in a framing this build reads;
 * - `whole`: a whole line, its JSON value and (for a record) its batch's offset.
 */
export type Line =
  | { readonly state: 'damaged'; readonly reason: string }
  | { readonly state: 'unreadable'; readonly reason: string }
  | { readonly state: 'whole'; readonly value: unknown; readonly batch: number };

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** The line from `start` to `end` (its newline); `record` when it carries a batch field (all but the header). */
export function parseLine(buf: Buffer, start: number, end: number, record: boolean): Line {
  const prefix = record ? RECORD_PREFIX : PREFIX;
  if (end - start < prefix + 2) return { state: 'damaged', reason: 'record too short' };
  let expected = 0;
  for (let i = start; i < start + 8; i++) {
    const digit = hexDigit(buf[i]!);
    if (digit < 0) return { state: 'damaged', reason: 'no checksum' };
    expected = expected * 16 + digit;
  }
  if (buf[start + 8] !== SP) return { state: 'damaged', reason: 'no checksum' };
  if (crc32(buf.subarray(start + PREFIX, end)) !== expected) return { state: 'damaged', reason: 'checksum mismatch' };
  let batch = 0;
  if (record) {
    for (let i = start + PREFIX; i < start + PREFIX + BATCH_DIGITS; i++) {
      const digit = hexDigit(buf[i]!);
      if (digit < 0) return { state: 'unreadable', reason: 'the line has no batch field' };
      batch = batch * 16 + digit;
    }
    if (buf[start + RECORD_PREFIX - 1] !== SP) return { state: 'unreadable', reason: 'the line has no batch field' };
  }
  try {
    return { state: 'whole', value: JSON.parse(buf.toString('utf8', start + prefix, end)), batch };
  } catch {
    return { state: 'unreadable', reason: 'the line is not JSON' };
  }
}

/**
 * The whole record lines `lines` with every batch offset moved by `shift`, each checksum made anew:
 * the records of a log whose header is replaced by one of another length, so that each still names
 * the byte its batch starts at.
 */
export function shiftBatches(lines: Buffer, shift: number): Buffer {
  const out = Buffer.from(lines);
  for (let start = 0; start < out.length; ) {
    const end = out.indexOf(NL, start);
    const batch = Number.parseInt(out.toString('latin1', start + PREFIX, start + RECORD_PREFIX - 1), 16);
    out.write(batchField(batch + shift), start + PREFIX, 'latin1');
    writeChecksum(out, start, start + PREFIX, end);
    start = end + 1;
  }
  return out;
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

/** Whether `buf` starts with the first `length` bytes of `line`. */
export function startsWith(buf: Buffer, line: Buffer, length = line.length): boolean {
  return buf.length >= length && buf.subarray(0, length).equals(line.subarray(0, length));
}

/**
 * Whether a record line could start at `offset` and end at `end`: long enough, with its two spaces in
 * place. Replay tries such positions inside a damaged line for an intact record.
 */
export function recordCouldStart(buf: Buffer, offset: number, end: number): boolean {
  return offset + RECORD_PREFIX + 2 <= end && buf[offset + PREFIX - 1] === SP && buf[offset + RECORD_PREFIX - 1] === SP;
}
