import * as fs from 'node:fs';
import * as path from 'node:path';
import { PlantTable } from '@plant-store/core';
import type { FileStoreRecovery } from '../file-store-types.js';
import { HEADER_LINE, scanLog, type ReplaySink } from './file-store-format.js';

/** Where replay puts a log's records: in `table`, an id of up to 15 digits as a number rather than a BigInt. */
function replayInto(table: PlantTable): ReplaySink {
  return {
    add(record) {
      const digits = record.id.charCodeAt(0) === 0x2d /* - */ ? record.id.length - 1 : record.id.length;
      const id = digits <= 15 ? Number(record.id) : BigInt(record.id);
      return table.add({ id, name: record.name, tag: record.tag }) === undefined;
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

/** A log opened for writing, replayed into memory, and ending on its last intact record. */
export interface OpenedLog {
  /** The data file, as an absolute path. */
  readonly path: string;
  readonly fd: number;
  /** The log's logical end: the end of its last record. */
  readonly size: number;
  /** The log's plants. */
  readonly index: PlantTable;
  readonly recovery: FileStoreRecovery;
}

/**
 * Opens the log at `file` (an absolute path) with `flags`, creating it when missing, replays it, and
 * repairs it: a missing or torn header is written afresh, a torn tail is cut away. The file is closed
 * again when any of that fails.
 */
export function openLog(file: string, flags: number): OpenedLog {
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
    const index = new PlantTable();
    const scan = scanLog(fs.readFileSync(fd), file, replayInto(index));
    const length = fs.fstatSync(fd).size;
    let size = scan.end;
    if (scan.needsHeader) {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, HEADER_LINE, 0, HEADER_LINE.length, 0);
      fs.fdatasyncSync(fd);
      size = HEADER_LINE.length;
    } else if (scan.end < length) {
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
    };
    return { path: file, fd, size, index, recovery };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}
