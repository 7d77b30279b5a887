import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileStoreError } from '../file-store-error.js';
import type { FileStoreRecovery } from '../file-store-types.js';
import { shiftBatches } from './file-store-format.js';
import { type ReplaySink, type ScanResult, scanLog } from './file-store-scan.js';
import type { LogCodec, ShapeTable } from './file-store-shape.js';

/** Where replay puts a log's records: in `table`. */
function replayInto(table: ShapeTable): ReplaySink {
  return {
    add(plant) {
      return table.add(plant) === undefined;
    },
    truncate(size) {
      table.truncate(size);
    },
  };
}

/** Makes a new directory entry durable: without it, a power loss can forget the file exists. */
function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch {
    return; // Windows cannot open a directory; NTFS journals the entry itself.
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory (EINVAL); they order metadata themselves.
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replaces the header of the log `file`, open as `fd` and read as `buf`, with `header`, which lists
 * fields the old one did not, before any record that carries them is written: from then on a build
 * that does not read them refuses the file, as it refuses every header it does not read in full, where
 * an old header would let it cut or misread those records. Atomic: the new file is written beside the
 * old one, synced, renamed over it, and the directory synced, so a crash leaves one or the other,
 * whole. The records up to `scan.end` are kept, moved in `buf` to name their batches' new offsets; a
 * torn tail after them is not copied. Returns the new file, opened with `flags`; `fd` is closed.
 */
function replaceHeader(file: string, fd: number, flags: number, buf: Buffer, scan: ScanResult, header: Buffer): number {
  // A symbolic link's target is replaced, not the link.
  const target = fs.realpathSync(file);
  const temp = `${target}.rewrite`;
  const records = shiftBatches(buf.subarray(scan.headerEnd, scan.end), header.length - scan.headerEnd);
  let out: number | undefined;
  try {
    // Left by a crash during an earlier rewrite: the rename never happened, so it holds nothing of the log's.
    fs.rmSync(temp, { force: true });
    out = fs.openSync(temp, 'wx', fs.fstatSync(fd).mode & 0o7777);
    fs.writeFileSync(out, header);
    fs.writeFileSync(out, records);
    fs.fsyncSync(out);
  } catch (error) {
    if (out !== undefined) {
      fs.closeSync(out);
      fs.rmSync(temp, { force: true });
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new FileStoreError(
      'io',
      file,
      `could not replace the header of ${file} with one that lists ${scan.fieldsToAdd.join(', ')} too (writing ${temp} failed: ${code}); the file is as it was, and no plant is written until its header lists every field`,
      { cause: error },
    );
  }
  fs.closeSync(out);
  fs.renameSync(temp, target);
  syncDirectory(path.dirname(target));
  fs.closeSync(fd);
  return fs.openSync(target, flags);
}

/** A log opened for writing, replayed into memory, and ending on its last intact record. */
export interface OpenedLog {
  /** The data file, as an absolute path. */
  readonly path: string;
  readonly fd: number;
  /** The log's logical end: the end of its last record. */
  readonly size: number;
  /** The log's plants. */
  readonly index: ShapeTable;
  readonly recovery: FileStoreRecovery;
}

/**
 * Opens the log at `file` (an absolute path) with `flags`, creating it when missing, replays it with
 * `codec`, and repairs it: a missing or torn header is written afresh, a torn tail is cut away, and a
 * header that lacks fields of the codec's shape is replaced by one that lists them. Nothing is written
 * before the whole file has been read, so a log refused is left as it was. The file is closed again
 * when any of that fails.
 */
export function openLog(file: string, flags: number, codec: LogCodec): OpenedLog {
  let created = true;
  let fd: number;
  try {
    fd = fs.openSync(file, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
    fd = fs.openSync(file, flags);
  }
  try {
    const index = codec.shape.createTable();
    const buf = fs.readFileSync(fd);
    const scan = scanLog(buf, file, codec, replayInto(index));
    let size = scan.end;
    if (scan.needsHeader) {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, codec.header, 0, codec.header.length, 0);
      fs.fdatasyncSync(fd);
      size = codec.header.length;
    } else if (scan.fieldsToAdd.length > 0) {
      fd = replaceHeader(file, fd, flags, buf, scan, codec.header);
      size = codec.header.length + scan.end - scan.headerEnd;
    } else if (scan.end < buf.length) {
      // The torn bytes were never acknowledged; cutting them lets new records follow intact ones.
      // A zero tail (preallocated space a crash left behind) goes too, and is filled afresh.
      fs.ftruncateSync(fd, scan.end);
      fs.fdatasyncSync(fd);
    }
    if (created) syncDirectory(path.dirname(file));
    // Only written bytes count as torn: zeros after them are unused space, not damage.
    const truncatedBytes = scan.tornReason === undefined ? 0 : scan.used - scan.end;
    const recovery: FileStoreRecovery = {
      plants: scan.count,
      truncatedBytes,
      created,
      ...(truncatedBytes > 0 ? { truncatedAt: scan.end, reason: scan.tornReason } : {}),
      ...(scan.fieldsToAdd.length > 0 ? { addedFields: scan.fieldsToAdd } : {}),
    };
    return { path: file, fd, size, index, recovery };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}
