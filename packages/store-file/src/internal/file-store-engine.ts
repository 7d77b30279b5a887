import * as fs from 'node:fs';
import * as path from 'node:path';
import { setImmediate as checkPhase } from 'node:timers/promises';
import { promisify } from 'node:util';
import { traceLink, type InsertResult, type PlantStore, type StoredPlant, type StoreSpan } from '@plant-store/core';
import { FileStoreError } from '../file-store-error.js';
import type { FileStoreRecovery, FileStoreStats } from '../file-store-types.js';
import {
  BatchFramer,
  WriteQueue,
  deferred,
  startWriteSpan,
  type PendingClear,
  type PendingRecord,
} from './file-store-batch.js';
import { NODE_IO, writeAll, type FileStoreIo } from './file-store-io.js';
import { acquireLock, releaseLock, type HeldLock } from './file-store-lock.js';
import { PREALLOCATE_CHUNK, Preallocation } from './file-store-preallocation.js';
import { openLog, type OpenedLog } from './file-store-recovery.js';
import { LogCodec, type PlantShape, SPEC_SHAPE, type ShapeTable } from './file-store-shape.js';

const close = promisify(fs.close);

const CREATED: InsertResult = Object.freeze({ created: true });

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
  readonly #index: ShapeTable;
  /** The header and records of the plant's shape. */
  readonly #codec: LogCodec;
  readonly #pending = new Map<bigint, PendingRecord>();
  readonly #queue = new WriteQueue();
  /** The log's logical end: the end of its last record. Batches are written here. */
  #size: number;
  readonly #preallocation: Preallocation;
  #draining = false;
  #drained: Promise<void> = Promise.resolve();
  #failure: FileStoreError | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #framer = new BatchFramer();
  #records = 0;
  #writes = 0;
  #syncs = 0;

  /**
   * Takes over `log`, which {@link FileStoreEngine.open} locked with `lock` and replayed with `codec`,
   * and starts zero-filling ahead of it `chunk` bytes at a time (0: never).
   */
  constructor(log: OpenedLog, codec: LogCodec, lock: HeldLock, io: FileStoreIo, dsync: boolean, chunk: number) {
    this.path = log.path;
    this.#codec = codec;
    this.recovery = log.recovery;
    this.#fd = log.fd;
    this.#index = log.index;
    this.#size = log.size;
    this.#lock = lock;
    this.#io = io;
    this.#dsync = dsync;
    this.#preallocation = new Preallocation(io, log.fd, dsync, log.size, chunk);
    // Started now, so that the first batches find their blocks written.
    this.#preallocate();
  }

  /**
   * Locks, creates or replays, and repairs a torn tail. `shape` is the spec's in every store; a test
   * gives another to play a build whose plants have other fields.
   */
  static async open(
    file: string,
    io: FileStoreIo = NODE_IO,
    options: { dsync?: boolean; preallocate?: number; shape?: PlantShape } = {},
  ): Promise<FileStoreEngine> {
    // With O_DSYNC each write returns only once its data (and the size needed to read it) is on
    // disk: the same guarantee as write + fdatasync in one thread-pool round trip instead of two,
    // which is most of a batch's latency when the CPU is busy. Windows has no O_DSYNC.
    const dsync = (options.dsync ?? true) && fs.constants.O_DSYNC !== undefined;
    const flags = fs.constants.O_RDWR | (dsync ? fs.constants.O_DSYNC : 0);
    const resolved = path.resolve(file);
    let lock: HeldLock | undefined;
    try {
      lock = await acquireLock(resolved);
      const codec = new LogCodec(options.shape ?? SPEC_SHAPE);
      const log = openLog(resolved, flags, codec);
      return new FileStoreEngine(log, codec, lock, io, dsync, options.preallocate ?? PREALLOCATE_CHUNK);
    } catch (error) {
      if (lock !== undefined) releaseLock(lock);
      if (error instanceof FileStoreError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new FileStoreError('io', resolved, `could not open ${resolved}: ${code}`, { cause: error });
    }
  }

  async insert(plant: StoredPlant): Promise<InsertResult> {
    this.#usable();
    // Checked before anything is written: the index keeps int64 ids only, as replay reads them back.
    const stored = this.#codec.shape.toStoredPlant(plant);
    const existing = this.#index.get(stored.id);
    if (existing !== undefined) return { created: false, existing };
    // Taken now, while the caller's trace context is the active one.
    const link = traceLink();
    const pending = this.#pending.get(stored.id);
    if (pending !== undefined) {
      if (link !== undefined) {
        if (pending.links === undefined) pending.links = [link];
        else pending.links.push(link);
      }
      // Answer only once the winner is durable: a replay 200 for a plant that a crash then loses
      // would break the promise the 200 made.
      await pending.done;
      return { created: false, existing: pending.plant };
    }
    const { promise, resolve, reject } = deferred();
    const record: PendingRecord = {
      kind: 'record',
      plant: stored,
      json: this.#codec.json(stored),
      done: promise,
      resolve,
      reject,
      links: link === undefined ? undefined : [link],
    };
    this.#pending.set(stored.id, record);
    this.#queue.pushRecord(record);
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
    this.#queue.pushClear({ kind: 'clear', resolve, reject });
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
    this.#queue.release();
    // Inserts already accepted are finished, not dropped: their callers are waiting for an answer.
    while (this.#draining) await this.#drained;
    await this.#preallocation.inFlight;
    try {
      if (this.#failure === undefined) {
        // A cleanly closed log ends on its last record: the preallocated zeros are given back.
        await this.#io.ftruncate(this.#fd, this.#size);
        await this.#io.fdatasync(this.#fd);
      }
    } finally {
      await close(this.#fd);
      releaseLock(this.#lock);
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
      // in flight) joins it, rather than the first one going out alone. The per-write cost is mostly
      // kernel and thread-pool hand-offs, so fewer, larger batches are less CPU per create.
      await checkPhase();
      // Taken in one synchronous step with the check for an empty queue, so an insert never finds a
      // writer that has already decided to stop.
      const next = this.#queue.take();
      if (next === undefined) {
        this.#draining = false;
        return;
      }
      if (!Array.isArray(next)) {
        await this.#runClear(next);
        continue;
      }
      const span = startWriteSpan(next);
      if (span === undefined) await this.#commit(next, undefined);
      else {
        // With the batch's span active and any fs instrumentation of the app silent (see StoreSpan.run).
        try {
          await span.run(() => this.#commit(next, span));
        } finally {
          span.end();
        }
      }
      if (!this.#closed && this.#failure === undefined) await this.#queue.rejoin(this.#queue.length + next.length);
    }
  }

  /** Writes and syncs `batch`, then answers each of its inserts; a failure is marked on `span`. */
  async #commit(batch: PendingRecord[], span: StoreSpan | undefined): Promise<void> {
    if (this.#failure !== undefined) {
      this.#rejectBatch(batch, span);
      return;
    }
    let buf: Buffer;
    try {
      buf = this.#framer.frame(batch, this.#size);
    } catch (error) {
      await this.#fail(error);
      this.#rejectBatch(batch, span);
      return;
    }
    const end = this.#size + buf.length;
    try {
      const overlapping = this.#preallocation.overlapping(end);
      if (overlapping !== undefined) await overlapping;
      this.#preallocation.takeError();
      await writeAll(this.#io, this.#fd, buf, this.#size);
      this.#writes++;
      if (!this.#dsync) await this.#io.fdatasync(this.#fd);
      this.#syncs++;
    } catch (error) {
      await this.#fail(error);
      this.#rejectBatch(batch, span);
      return;
    }
    this.#size = end;
    this.#preallocation.wrote(end);
    this.#records += batch.length;
    for (const record of batch) {
      this.#index.add(record.plant);
      this.#pending.delete(record.plant.id);
      record.resolve();
    }
    this.#preallocate();
  }

  /** Zero-fills the next chunk when the log comes within one chunk of the written end. */
  #preallocate(): void {
    if (this.#closed || this.#failure !== undefined) return;
    this.#preallocation.extend(this.#size);
  }

  async #runClear(op: PendingClear): Promise<void> {
    if (this.#failure !== undefined) return op.reject(this.#failure);
    try {
      // The zero-filling must not write past the cut.
      await this.#preallocation.inFlight;
      this.#preallocation.takeError();
      // A crash between the cut and the header leaves an empty or torn-header file, which opens
      // as an empty store: the same result the clear was going to have. The log starts afresh with
      // this build's header, as a new file does, whatever header it had (version 2 included).
      await this.#io.ftruncate(this.#fd, 0);
      await writeAll(this.#io, this.#fd, this.#codec.header, 0);
      this.#writes++;
      await this.#io.fdatasync(this.#fd);
      this.#syncs++;
    } catch (error) {
      await this.#fail(error);
      return op.reject(this.#failure);
    }
    // Like a closed log, a cleared one is just its header; the next batch starts the zero-filling again.
    this.#size = this.#codec.header.length;
    this.#preallocation.cut(this.#size);
    this.#index.clear();
    op.resolve();
  }

  /** Rejects every insert of `batch` with the store's failure, and marks `span` failed with it. */
  #rejectBatch(batch: readonly PendingRecord[], span: StoreSpan | undefined): void {
    span?.fail(this.#failure);
    for (const record of batch) {
      this.#pending.delete(record.plant.id);
      record.reject(this.#failure);
    }
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
      await this.#preallocation.inFlight;
      // Best effort: cut a partial batch (and the preallocated zeros) so the file ends on a whole record.
      await this.#io.ftruncate(this.#fd, this.#size);
    } catch {
      // Replay at the next start cuts a torn tail anyway.
    }
  }
}
