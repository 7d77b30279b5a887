import { writeAll, type FileStoreIo } from './file-store-io.js';

/**
 * How far ahead of its last record the log is zero-filled. An O_DSYNC write that extends a file must
 * also commit the new size through the filesystem journal; one that overwrites blocks already
 * written does not, and costs far less CPU and wall time.
 * Zeros, not `fallocate`: fallocated extents are "unwritten", and converting them on the first
 * write is again a journalled metadata change.
 */
export const PREALLOCATE_CHUNK = 4 * 1024 * 1024;

// The zero-filling writes at most this much per call, so a batch's write never queues behind megabytes.
const ZERO_WRITE = 1024 * 1024;
let zeros: Buffer | undefined;

// Out of space for zeros ahead is not yet out of space for records: stop preallocating and append.
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * The zero-filled space ahead of a log's last record (see {@link PREALLOCATE_CHUNK}): how far the file
 * is written, and the zero-filling of the next chunk, which runs beside the batches rather than before
 * one, so that the batches keep writing below the written end meanwhile.
 */
export class Preallocation {
  readonly #io: FileStoreIo;
  readonly #fd: number;
  readonly #dsync: boolean;
  /** Bytes of the file known to be written (records, or synced zeros): writes below it overwrite. */
  #allocated: number;
  /** Zero-filling chunk size; 0 once preallocation is off. */
  #chunk: number;
  /** The zero-filling in flight: it never rejects; its error waits in `#error`. */
  #inFlight: Promise<void> | undefined;
  #error: unknown;

  /** For the log open on `fd`, written up to `size`, zero-filled `chunk` bytes at a time (0: never). */
  constructor(io: FileStoreIo, fd: number, dsync: boolean, size: number, chunk: number) {
    this.#io = io;
    this.#fd = fd;
    this.#dsync = dsync;
    this.#allocated = size;
    this.#chunk = chunk;
  }

  /** The zero-filling in flight, if any. It never rejects: its error is thrown by {@link takeError}. */
  get inFlight(): Promise<void> | undefined {
    return this.#inFlight;
  }

  /** Starts zero-filling the next chunk once the log's end, `size`, comes within one chunk of the written end. */
  extend(size: number): void {
    if (this.#chunk === 0 || this.#inFlight !== undefined) return;
    if (this.#allocated - size >= this.#chunk) return;
    const from = this.#allocated;
    const length = this.#chunk;
    this.#inFlight = this.#zeroFill(from, length)
      .then(
        () => {
          this.#allocated = Math.max(this.#allocated, from + length);
        },
        (error: unknown) => {
          this.#error = error;
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
      });
  }

  /**
   * What a write ending at `end` must wait for: the zero-filling writes from the written end on, so a
   * batch that reaches past it waits, and the zeros can never land over its records. With a chunk of
   * headroom this is rare.
   */
  overlapping(end: number): Promise<void> | undefined {
    return end > this.#allocated ? this.#inFlight : undefined;
  }

  /** Notes that a batch wrote the file up to `end`. */
  wrote(end: number): void {
    if (end > this.#allocated) this.#allocated = end;
  }

  /** Notes that the file was cut to `size`: nothing after it is written any more. */
  cut(size: number): void {
    this.#allocated = size;
  }

  /** Throws a failed zero-filling's error, unless it only ran out of space (then appends go on). */
  takeError(): void {
    const error = this.#error;
    if (error === undefined) return;
    this.#error = undefined;
    if (OUT_OF_SPACE.has((error as NodeJS.ErrnoException).code ?? '')) {
      this.#chunk = 0;
      return;
    }
    // Any other failure (EIO) may have been reported for dirty pages of records too.
    throw error;
  }

  async #zeroFill(from: number, length: number): Promise<void> {
    zeros ??= Buffer.alloc(ZERO_WRITE);
    for (let done = 0; done < length; ) {
      const n = Math.min(zeros.length, length - done);
      await writeAll(this.#io, this.#fd, zeros.subarray(0, n), from + done);
      done += n;
    }
    // Synced, so that a batch overwriting these blocks has no size or allocation left to commit.
    if (!this.#dsync) await this.#io.fdatasync(this.#fd);
  }
}
