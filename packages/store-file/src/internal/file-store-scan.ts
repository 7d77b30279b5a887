// Replay: reading a whole log at open, telling a torn last write (cut away) from damage to acknowledged
// records and from records this build cannot read (both refused, the file left as it is).
import type { StoredPlant } from '@plant-store/core';
import { FileStoreError } from '../file-store-error.js';
import { NL, parseLine, recordCouldStart, startsWith, usedLength } from './file-store-format.js';
import { fieldsToAdd, type LogHeader, readHeader, remedy, V2_HEADER_LINE, WRITER } from './file-store-header.js';
import type { LogCodec } from './file-store-shape.js';

/** Where a replay puts the records it accepts. */
export interface ReplaySink {
  /** Takes one record; `false` when its id was seen already. */
  add(plant: StoredPlant): boolean;
  /** Forgets the records added after the first `size` (a torn last batch that is being cut away). */
  truncate(size: number): void;
}

/** What replaying a log found. */
export interface ScanResult {
  /** How many records were replayed. */
  readonly count: number;
  /** Length of the header line: the records start here. */
  readonly headerEnd: number;
  /** Length of the intact prefix (the log's logical end); the file is cut here when it is longer. */
  readonly end: number;
  /** Length of the file without its all-zero tail (unused preallocated space). */
  readonly used: number;
  /** The header is missing or torn (a new, or cleared-then-crashed, file): write it at byte 0. */
  readonly needsHeader: boolean;
  /**
   * The shape's fields that the header does not list: its records hold none of them, but records that
   * do must not follow until the header lists them.
   */
  readonly fieldsToAdd: readonly string[];
  /** Why the bytes from `end` on were dropped, when any were. */
  readonly tornReason?: string;
}

function corrupt(path: string, offset: number, what: string): FileStoreError {
  return new FileStoreError(
    'corrupt',
    path,
    `${path} is damaged at byte ${offset} (${what}), so the damage is not a torn last write. Refusing to start so that no stored plant is dropped: restore the file from a backup, or cut it at byte ${offset} to keep the plants before the damage.`,
    { offset },
  );
}

/** A record written whole that this build cannot read: never cut, since a build that reads it may be run. */
function unreadable(path: string, offset: number, header: LogHeader, value: unknown, why: string): FileStoreError {
  const id = (value as { id?: unknown } | null)?.id;
  const which = typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint' ? ` (id ${id})` : '';
  return new FileStoreError(
    'unsupported',
    path,
    `${path} holds a record at byte ${offset}${which} that this build (${WRITER}) cannot read: ${why}. The file's header names ${header.writer ?? 'no writer (log format version 2)'}. Refusing to start rather than drop or misread a stored plant, and leaving the file as it is: open it with ${remedy(header)}, whose fields and rules take this record.`,
    { offset },
  );
}

/** The header's length and what it says, or why the file holds no header yet (a torn one is cut). */
function scanHeader(
  buf: Buffer,
  used: number,
  path: string,
  codec: LogCodec,
): { end: number; header: LogHeader } | { torn: true } {
  // A header torn by a crash as the file was created: nothing follows it (records are written only
  // once it is synced), so the file is an empty log.
  for (const line of [codec.header, V2_HEADER_LINE]) {
    if (used > 0 && used < line.length && startsWith(buf, line, used)) return { torn: true };
  }
  const nl = buf.indexOf(NL);
  const first = nl === -1 ? undefined : parseLine(buf, 0, nl, false);
  const header = first?.state === 'whole' ? readHeader(first.value, path) : undefined;
  if (header === undefined) {
    throw new FileStoreError(
      'unsupported',
      path,
      `${path} is not a plant store data file (it does not start with the plant-store-log header); refusing to touch it. Point --data at a new file or at an existing plant store log.`,
    );
  }
  return { end: nl + 1, header };
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
 *   last batch, since a torn write cannot leave that (see `embeddedRecord`).
 *
 * Only a line whose checksum fails is damage. A line written whole (its checksum holds) that this
 * build cannot read in full, wherever it stands, refuses the open: a header of another format version
 * or of fields this build does not know or holds as another kind, and a record with a member that is
 * not one of the shape's fields or a value the shape's rules refuse. A build that reads it may be run
 * on the file, so none of it is ever cut.
 */
export function scanLog(buf: Buffer, path: string, codec: LogCodec, sink: ReplaySink): ScanResult {
  const empty = { count: 0, headerEnd: 0, end: 0, needsHeader: true, fieldsToAdd: [] };
  if (buf.length === 0) return { ...empty, used: 0 };
  // Zeros after the last written byte are the log's preallocated space, or the rest of a chunk whose
  // zero-filling a crash interrupted: unused, not damage. No record contains a NUL byte (JSON escapes
  // control characters), so trimming them never shortens a record.
  const used = usedLength(buf);
  const head = scanHeader(buf, used, path, codec);
  if ('torn' in head) return { ...empty, used, tornReason: 'torn header' };
  const { header } = head;
  const toAdd = fieldsToAdd(header, codec.shape.fields, path);

  /** The line `[start, end)` as a record: its batch and plant, or why it is damaged. */
  const readRecord = (start: number, end: number): { batch: number; plant: StoredPlant } | string => {
    const line = parseLine(buf, start, end, true);
    if (line.state === 'damaged') return line.reason;
    if (line.state === 'unreadable') throw unreadable(path, start, header, undefined, line.reason);
    const plant = codec.read(line.value);
    if (typeof plant === 'string') throw unreadable(path, start, header, line.value, plant);
    return { batch: line.batch, plant };
  };
  /** The line's batch offset when it is an intact record, else `undefined`. */
  const intactBatch = (start: number, end: number): number | undefined => {
    const record = readRecord(start, end);
    return typeof record === 'string' ? undefined : record.batch;
  };
  /**
   * Where an intact record ends the damaged line `[start, end)`, or -1. A record whose newline
   * was damaged runs into the next one, which is then intact although no line starts at it; so does an
   * intact record after garbage that has no newline. Looked for only after damage: every position that
   * could start a record's prefix is tried, and the last intact one wins (the line ends at its newline).
   */
  const embeddedRecord = (start: number, end: number): number => {
    let found = -1;
    for (let offset = start + 1; offset < end; offset++) {
      if (recordCouldStart(buf, offset, end) && intactBatch(offset, end) !== undefined) found = offset;
    }
    return found;
  };
  const result = (count: number, end: number, tornReason?: string): ScanResult => ({
    count,
    headerEnd: head.end,
    end,
    used,
    needsHeader: false,
    fieldsToAdd: toAdd,
    ...(tornReason === undefined ? {} : { tornReason }),
  });

  let count = 0;
  let pos = head.end;
  // The batch of the last intact record, and how many records were replayed before it (what is kept if it is cut).
  let batchStart = -1;
  let countBefore = 0;
  while (pos < used) {
    const nl = buf.indexOf(NL, pos);
    const record = nl === -1 ? 'incomplete last record' : readRecord(pos, nl);
    if (typeof record !== 'string') {
      const { batch, plant } = record;
      if (batch === pos) {
        batchStart = pos;
        countBefore = count;
      } else if (batch !== batchStart) {
        throw corrupt(path, pos, `the record names a batch at byte ${batch}, which is not the batch it is in`);
      }
      if (!sink.add(plant)) {
        throw new FileStoreError(
          'corrupt',
          path,
          `${path} is damaged at byte ${pos}: id ${plant.id} is stored twice, which this store never writes. Refusing to start rather than guess which one is right.`,
          { offset: pos },
        );
      }
      count++;
      pos = nl + 1;
      continue;
    }
    const reason = record;
    // Damage at `pos`: which batches do the intact records after it belong to? The first may stand
    // inside the damaged line itself.
    let after: number | undefined;
    const embedded = nl !== -1 ? embeddedRecord(pos, nl) : -1;
    if (embedded !== -1) {
      // An intact record, then one wrong byte where its newline belongs, then an intact record: a
      // crash cannot leave that (a lost block takes the bytes before the newline with it), so the
      // write was whole, and may have been acknowledged, whichever batch this is.
      if (embedded - 1 > pos && intactBatch(pos, embedded - 1) !== undefined) {
        throw corrupt(
          path,
          pos,
          `the newline ending this record, at byte ${embedded - 1}, is damaged, though the records on both sides of it are intact`,
        );
      }
      after = intactBatch(embedded, nl);
    }
    for (let next = nl === -1 ? -1 : nl + 1; next !== -1 && next < used; ) {
      const nextNl = buf.indexOf(NL, next);
      if (nextNl === -1) break;
      const batch = intactBatch(next, nextNl);
      if (batch !== undefined) {
        if (after !== undefined && batch !== after) {
          throw corrupt(path, pos, `${reason}, and intact records of more than one batch follow it`);
        }
        after = batch;
      }
      next = nextNl + 1;
    }
    if (after === undefined) return result(count, pos, reason);
    // The last batch starts at the damage: its first lines were never written.
    if (after === pos) return result(count, pos, `torn last batch (${reason})`);
    if (after === batchStart) {
      // The last batch was torn in its middle: its intact first records go with the rest of it.
      // A batch is the last records replayed, so cutting it is cutting the sink back.
      sink.truncate(countBefore);
      return result(countBefore, batchStart, `torn last batch (${reason} at byte ${pos})`);
    }
    throw corrupt(
      path,
      pos,
      `${reason}, and intact records follow it of a batch at byte ${after}, which ${after > pos ? 'starts after the damage' : 'was written before the damaged one'}`,
    );
  }
  return result(count, pos);
}
