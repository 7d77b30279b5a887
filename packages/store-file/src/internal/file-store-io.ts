import * as fs from 'node:fs';
import { promisify } from 'node:util';

/**
 * The calls of the write path. A seam for tests, which make them fail the way a full or dying disk
 * does; production always uses {@link NODE_IO}.
 */
export interface FileStoreIo {
  write(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  fdatasync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
}

/** node:fs, promisified. */
export const NODE_IO: FileStoreIo = {
  write: promisify(fs.write) as FileStoreIo['write'],
  fdatasync: promisify(fs.fdatasync),
  ftruncate: promisify(fs.ftruncate),
};

/** Writes all of `buf` at `position`. */
export async function writeAll(io: FileStoreIo, fd: number, buf: Buffer, position: number): Promise<void> {
  // A regular-file write may be short (a full disk, a signal); the rest is written after it.
  for (let done = 0; done < buf.length; ) {
    const { bytesWritten } = await io.write(fd, buf, done, buf.length - done, position + done);
    if (bytesWritten === 0) throw new Error('write made no progress');
    done += bytesWritten;
  }
}
