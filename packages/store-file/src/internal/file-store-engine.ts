import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as checkPhase } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PlantTable, toStoredPlant, type InsertResult, type PlantStore, type StoredPlant } from '@plant-store/core';
import type { FileStoreRecovery, FileStoreStats } from '../file-store.js';
import { FileStoreError } from '../file-store-error.js';
import {
  HEADER_LINE,
  batchField,
  lineBound,
  plantJson,
  scanLog,
  writeLine,
  type ReplaySink,
} from './file-store-format.js';
import { acquireLock, releaseLock, type HeldLock } from './file-store-lock.js';

const close = promisify(fs.close);

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

const CREATED: InsertResult = Object.freeze({ created: true });

/**
 * How far ahead of its last record the log is zero-filled. An O_DSYNC write that extends a file must
 * also commit the new size through the filesystem journal; one that overwrites blocks already
 * written does not (on ext4 the overwrite costs about two thirds of the CPU and wall time).
 * Zeros, not `fallocate`: fallocated extents are "unwritten", and converting them on the first
 * write is again a journalled metadata change.
 */
export const PREALLOCATE_CHUNK = 4 * 1024 * 1024;

// The zero-filling writes at most this much per call, so a batch's write never queues behind megabytes.
const ZERO_WRITE = 1024 * 1024;
let zeros: Buffer | undefined;

/**
 * How long, at most, the next batch waits for the clients whose creates the last batch answered
 * (see #rejoin). Short, so a client that does not come back costs little. Not 1: libuv counts a
 * timer from the loop's time, read when the loop last woke, so after a busy turn a 1 ms wait often
 * ended well under 1 ms of real time, and half the batches went out short; longer waits gained nothing.
 */
export const REJOIN_WAIT_MS = 2;

// Batches up to this many bytes (about 400 records of a typical plant) are framed into one kept buffer.
const BATCH_BUFFER = 64 * 1024;

// Out of space for zeros ahead is not yet out of space for records: stop preallocating and append.
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

interface PendingRecord {
  readonly kind: 'record';
  readonly plant: StoredPlant;
  /** The record's JSON, made at insert; framed (checksum, batch field) into its batch's buffer. */
  readonly json: string;
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

interface PendingClear {
  readonly kind: 'clear';
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): { promise: Promise<void>; resolve(): void; reject(error: unknown): void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function writeAll(io: FileStoreIo, fd: number, buf: Buffer, position: number): Promise<void> {
  // A regular-file write may be short (a full disk, a signal); the rest is written after it.
  for (let done = 0; done < buf.length; ) {
    const { bytesWritten } = await io.write(fd, buf, done, buf.length - done, position + done);
    if (bytesWritten === 0) throw new Error('write made no progress');
    done += bytesWritten;
  }
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

// One store per file per process: the lock file names a pid, so a second store in the same
// process would find its own pid and could not tell it from a crashed predecessor.
const openInThisProcess = new Set<string>();

/**
 * The append-only, fsynced, group-committed log behind `openFileStore`. The file is zero-filled a
 * chunk ahead of its last record, and batches are written over those zeros (see PREALLOCATE_CHUNK).
 */
export class FileStoreEngine implements PlantStore {
  readonly path: string;
  readonly recovery: FileStoreRecovery;
  readonly #fd: number;
  readonly #io: FileStoreIo;
  readonly #dsync: boolean;
  readonly #lock: HeldLock;
  /** The log's plants, kept compactly (core's memory store layout). */
  readonly #index: PlantTable;
  readonly #pending = new Map<bigint, PendingRecord>();
  #queue: Array<PendingRecord | PendingClear> = [];
  /** The log's logical end: the end of its last record. Batches are written here. */
  #size: number;
  /** Bytes of the file known to be written (records, or synced zeros): writes below it overwrite. */
  #allocated: number;
  /** Zero-filling chunk size; 0 once preallocation is off. */
  #chunk: number;
  /** The zero-filling in flight: it never rejects; its error waits in `#extendError`. */
  #extending: Promise<void> | undefined;
  #extendError: unknown;
  #draining = false;
  /** Ends the wait of #rejoin early; set while one runs. */
  #release: (() => void) | undefined;
  /** The queue length at which #rejoin's wait ends. */
  #rejoinTarget = 0;
  #drained: Promise<void> = Promise.resolve();
  #failure: FileStoreError | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Reused for every batch that fits (see #encode). */
  readonly #batchBuffer = Buffer.allocUnsafe(BATCH_BUFFER);
  #records = 0;
  #writes = 0;
  #syncs = 0;

  private constructor(
    file: string,
    fd: number,
    io: FileStoreIo,
    dsync: boolean,
    lock: HeldLock,
    size: number,
    chunk: number,
    index: PlantTable,
    recovery: FileStoreRecovery,
  ) {
    this.path = file;
    this.#fd = fd;
    this.#io = io;
    this.#dsync = dsync;
    this.#lock = lock;
    this.#size = size;
    this.#allocated = size;
    this.#chunk = chunk;
    this.#index = index;
    this.recovery = recovery;
  }

  /** Locks, creates or replays, and repairs a torn tail. */
  static async open(
    file: string,
    io: FileStoreIo = NODE_IO,
    options: { dsync?: boolean; preallocate?: number } = {},
  ): Promise<FileStoreEngine> {
    // With O_DSYNC each write returns only once its data (and the size needed to read it) is on
    // disk: the same guarantee as write + fdatasync in one thread-pool round trip instead of two,
    // which is most of a batch's latency when the CPU is busy. Windows has no O_DSYNC.
    const dsync = (options.dsync ?? true) && fs.constants.O_DSYNC !== undefined;
    const flags = fs.constants.O_RDWR | (dsync ? fs.constants.O_DSYNC : 0);
    const resolved = path.resolve(file);
    if (openInThisProcess.has(resolved)) {
      throw new FileStoreError(
        'locked',
        resolved,
        `${resolved} is already open in this process; close that store first.`,
      );
    }
    openInThisProcess.add(resolved);
    let lock: HeldLock | undefined;
    let fd: number | undefined;
    try {
      lock = await acquireLock(resolved);
      let created = true;
      try {
        fd = fs.openSync(resolved, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o644);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        created = false;
        fd = fs.openSync(resolved, flags);
      }
      const index = new PlantTable();
      const scan = scanLog(fs.readFileSync(fd), resolved, replayInto(index));
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
      if (created) syncDirectory(path.dirname(resolved));
      // Only written bytes count as torn: zeros after them are unused space, not damage.
      const truncatedBytes = scan.tornReason === undefined ? 0 : scan.used - scan.end;
      const recovery: FileStoreRecovery = {
        plants: scan.count,
        truncatedBytes,
        created,
        ...(truncatedBytes > 0 ? { truncatedAt: scan.end, reason: scan.tornReason } : {}),
      };
      const chunk = options.preallocate ?? PREALLOCATE_CHUNK;
      const engine = new FileStoreEngine(resolved, fd, io, dsync, lock, size, chunk, index, recovery);
      // Started now, so that the first batches find their blocks written.
      engine.#preallocate();
      return engine;
    } catch (error) {
      if (fd !== undefined) fs.closeSync(fd);
      if (lock !== undefined) releaseLock(lock);
      openInThisProcess.delete(resolved);
      if (error instanceof FileStoreError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new FileStoreError('io', resolved, `could not open ${resolved}: ${code}`, { cause: error });
    }
  }

  async insert(plant: StoredPlant): Promise<InsertResult> {
    this.#usable();
    // Checked before anything is written: the index keeps int64 ids only, as replay reads them back.
    const stored = toStoredPlant(plant);
    const existing = this.#index.get(stored.id);
    if (existing !== undefined) return { created: false, existing };
    const pending = this.#pending.get(stored.id);
    if (pending !== undefined) {
      // Answer only once the winner is durable: a replay 200 for a plant that a crash then loses
      // would break the promise the 200 made.
      await pending.done;
      return { created: false, existing: pending.plant };
    }
    const { promise, resolve, reject } = deferred();
    const record: PendingRecord = {
      kind: 'record',
      plant: stored,
      json: plantJson(stored),
      done: promise,
      resolve,
      reject,
    };
    this.#pending.set(stored.id, record);
    this.#queue.push(record);
    if (this.#queue.length >= this.#rejoinTarget) this.#release?.();
    this.#kick();
    await promise;
    return CREATED;
  }

  /** Rejects once the store is closed, or failed (a write or fsync error: fail-stop until reopened). */
  async checkHealth(): Promise<void> {
    this.#usable();
  }

  async get(id: bigint): Promise<StoredPlant | undefined> {
    this.#usable();
    return this.#index.get(id);
  }

  async list(): Promise<StoredPlant[]> {
    this.#usable();
    return this.#index.list();
  }

  async size(): Promise<number> {
    this.#usable();
    return this.#index.size;
  }

  async clear(): Promise<void> {
    this.#usable();
    const { promise, resolve, reject } = deferred();
    this.#queue.push({ kind: 'clear', resolve, reject });
    this.#release?.();
    this.#kick();
    return promise;
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Counters since open. */
  stats(): FileStoreStats {
    return { records: this.#records, writes: this.#writes, syncs: this.#syncs };
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#release?.();
    // Inserts already accepted are finished, not dropped: their callers are waiting for an answer.
    while (this.#draining) await this.#drained;
    await this.#extending;
    try {
      if (this.#failure === undefined) {
        // A cleanly closed log ends on its last record: the preallocated zeros are given back.
        await this.#io.ftruncate(this.#fd, this.#size);
        await this.#io.fdatasync(this.#fd);
      }
    } finally {
      await close(this.#fd);
      releaseLock(this.#lock);
      openInThisProcess.delete(this.path);
    }
  }

  #usable(): void {
    if (this.#closed) throw new FileStoreError('closed', this.path, `the plant store on ${this.path} is closed`);
    if (this.#failure !== undefined) throw this.#failure;
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = true;
    this.#drained = this.#drain();
  }

  /**
   * The single writer. While one batch is being written and synced, new records queue up; the
   * next turn takes all of them as one batch: one O_DSYNC `write`, or one `write` and one
   * `fdatasync` (group commit).
   */
  async #drain(): Promise<void> {
    for (;;) {
      // Each batch starts in the check phase, after the poll phase's callbacks: every request that
      // arrived in the same event-loop turn (and, after a write, every one the loop read while it was
      // in flight) joins it, rather than the first one going out alone. On one core the per-write cost
      // is mostly kernel and thread-pool hand-offs, so fewer, larger batches are less CPU per create.
      await checkPhase();
      // Checked and cleared in one synchronous step, so an insert never finds a writer that has
      // already decided to stop.
      if (this.#queue.length === 0) {
        this.#draining = false;
        return;
      }
      const head = this.#queue[0]!;
      if (head.kind === 'clear') {
        this.#queue.shift();
        await this.#runClear(head);
        continue;
      }
      let count = 1;
      while (count < this.#queue.length && this.#queue[count]!.kind === 'record') count++;
      const batch = this.#queue.splice(0, count) as PendingRecord[];
      await this.#commit(batch);
      await this.#rejoin(this.#queue.length + batch.length);
    }
  }

  /**
   * Holds the next batch until the clients the last one just answered have sent their next creates
   * (`target` records queued: those waiting already, plus one per answer), or REJOIN_WAIT_MS passes.
   * Without it, the answered clients come back while the few creates that arrived during the write
   * are being written, and the load splits into two half-sized batches forever, each paying the whole
   * cost of a write (on one core mostly kernel time and thread-pool hand-offs, not bytes). A lone client's next create meets the target alone, so it is written at once;
   * only creates that arrive while answered clients are still missing wait, at most REJOIN_WAIT_MS.
   * Every create is still answered only once its batch is durable.
   */
  async #rejoin(target: number): Promise<void> {
    if (this.#queue.length >= target || this.#closed || this.#failure !== undefined) return;
    this.#rejoinTarget = target;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#release?.(), REJOIN_WAIT_MS);
      this.#release = () => {
        clearTimeout(timer);
        this.#release = undefined;
        this.#rejoinTarget = 0;
        resolve();
      };
    });
  }

  async #commit(batch: PendingRecord[]): Promise<void> {
    if (this.#failure !== undefined) {
      for (const record of batch) this.#settleFailed(record);
      return;
    }
    let buf: Buffer;
    try {
      buf = this.#encode(batch);
    } catch (error) {
      await this.#fail(error);
      for (const record of batch) this.#settleFailed(record);
      return;
    }
    const end = this.#size + buf.length;
    try {
      // The zero-filling writes from #allocated on: a batch that reaches past it waits, so the
      // zeros can never land over its records. With a chunk of headroom this is rare.
      if (end > this.#allocated && this.#extending !== undefined) await this.#extending;
      this.#takeExtendError();
      await writeAll(this.#io, this.#fd, buf, this.#size);
      this.#writes++;
      if (!this.#dsync) await this.#io.fdatasync(this.#fd);
      this.#syncs++;
    } catch (error) {
      await this.#fail(error);
      for (const record of batch) this.#settleFailed(record);
      return;
    }
    this.#size = end;
    if (end > this.#allocated) this.#allocated = end;
    this.#records += batch.length;
    for (const record of batch) {
      this.#index.add(record.plant);
      this.#pending.delete(record.plant.id);
      record.resolve();
    }
    this.#preallocate();
  }

  /**
   * The bytes of a batch written at #size: every record names that offset as its batch's start, so
   * that recovery can tell a torn last batch from damage to acknowledged ones. One field per batch.
   * The lines are framed straight into one buffer, kept from batch to batch: it is free again as
   * soon as #commit's write has returned, because only one batch is ever being written.
   */
  #encode(batch: PendingRecord[]): Buffer {
    const field = batchField(this.#size);
    let bound = 0;
    for (const record of batch) bound += lineBound(record.json);
    let buf = this.#batchBuffer;
    if (bound > buf.length) {
      // A burst larger than the kept buffer gets its own; the kept one stays small.
      buf = Buffer.allocUnsafe(bound);
    }
    let at = 0;
    for (const record of batch) at = writeLine(buf, at, record.json, field);
    return buf.subarray(0, at);
  }

  /**
   * Zero-fills the next chunk once the log comes within one chunk of the written end, beside the
   * batches rather than before one: the batches keep writing below #allocated meanwhile.
   */
  #preallocate(): void {
    if (this.#chunk === 0 || this.#extending !== undefined || this.#closed || this.#failure !== undefined) return;
    if (this.#allocated - this.#size >= this.#chunk) return;
    const from = this.#allocated;
    const length = this.#chunk;
    this.#extending = this.#zeroFill(from, length)
      .then(
        () => {
          this.#allocated = Math.max(this.#allocated, from + length);
        },
        (error: unknown) => {
          this.#extendError = error;
        },
      )
      .finally(() => {
        this.#extending = undefined;
      });
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

  /** Throws a failed zero-filling's error, unless it only ran out of space (then appends go on). */
  #takeExtendError(): void {
    const error = this.#extendError;
    if (error === undefined) return;
    this.#extendError = undefined;
    if (OUT_OF_SPACE.has((error as NodeJS.ErrnoException).code ?? '')) {
      this.#chunk = 0;
      return;
    }
    // Any other failure (EIO) may have been reported for dirty pages of records too.
    throw error;
  }

  async #runClear(op: PendingClear): Promise<void> {
    if (this.#failure !== undefined) return op.reject(this.#failure);
    try {
      // The zero-filling must not write past the cut.
      await this.#extending;
      this.#takeExtendError();
      // A crash between the cut and the header leaves an empty or torn-header file, which opens
      // as an empty store: the same result the clear was going to have.
      await this.#io.ftruncate(this.#fd, 0);
      await writeAll(this.#io, this.#fd, HEADER_LINE, 0);
      this.#writes++;
      await this.#io.fdatasync(this.#fd);
      this.#syncs++;
    } catch (error) {
      await this.#fail(error);
      return op.reject(this.#failure);
    }
    // Like a closed log, a cleared one is just its header; the next batch starts the zero-filling again.
    this.#size = HEADER_LINE.length;
    this.#allocated = HEADER_LINE.length;
    this.#index.clear();
    op.resolve();
  }

  #settleFailed(record: PendingRecord): void {
    this.#pending.delete(record.plant.id);
    record.reject(this.#failure);
  }

  /**
   * After a failed write or sync nothing about the file's tail can be trusted (a failed fsync may
   * have dropped dirty pages for good), so the store stops writing. Restarting replays what did
   * reach the disk; none of it was acknowledged, so a client's retry is answered correctly.
   */
  async #fail(error: unknown): Promise<void> {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    this.#failure = new FileStoreError(
      'io',
      this.path,
      `writing ${this.path} failed (${code}); the store accepts no more writes until the server is restarted`,
      { cause: error },
    );
    try {
      // After the zero-filling, or it could write again past the cut.
      await this.#extending;
      // Best effort: cut a partial batch (and the preallocated zeros) so the file ends on a whole record.
      await this.#io.ftruncate(this.#fd, this.#size);
    } catch {
      // Replay at the next start cuts a torn tail anyway.
    }
  }
}
