import { startStoreSpan, type StoreSpan, type StoredPlant, type TraceLink } from '@plant-store/core';
import { batchField, lineBound, writeLine } from './file-store-format.js';

/** A record waiting for its batch's write, and the insert waiting for it to be durable. */
export interface PendingRecord {
  readonly kind: 'record';
  readonly plant: StoredPlant;
  /** The record's JSON, made at insert; framed (checksum, batch field) into its batch's buffer. */
  readonly json: string;
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
  /**
   * The trace contexts of the inserts waiting on the record (the one that queued it, then those of
   * the same id that joined it), for its batch's span to link to; undefined while none is traced.
   */
  links: TraceLink[] | undefined;
}

/** A `clear` waiting for the batches queued before it. */
export interface PendingClear {
  readonly kind: 'clear';
  resolve(): void;
  reject(error: unknown): void;
}

/** A promise with its settling functions. */
export function deferred(): { promise: Promise<void>; resolve(): void; reject(error: unknown): void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * How long, at most, the next batch waits for the clients whose creates the last batch answered
 * (see {@link WriteQueue.rejoin}). Short, so a client that does not come back costs little. Not 1:
 * libuv counts a timer from the loop's time, read when the loop last woke, so after a busy turn a
 * 1 ms wait can end well under 1 ms of real time and let batches go out short.
 */
export const REJOIN_WAIT_MS = 2;

/** What the single writer does next: a clear alone, or a batch of records written as one. */
export type NextWrite = PendingClear | PendingRecord[];

/** The operations waiting for the single writer, in order, and the wait that lets a batch fill up. */
export class WriteQueue {
  #items: Array<PendingRecord | PendingClear> = [];
  /** Ends the wait of {@link rejoin} early; set while one runs. */
  #release: (() => void) | undefined;
  /** The queue length at which {@link rejoin}'s wait ends. */
  #rejoinTarget = 0;

  get length(): number {
    return this.#items.length;
  }

  /** Queues a record; ends a rejoin wait once the queue holds what it waits for. */
  pushRecord(record: PendingRecord): void {
    this.#items.push(record);
    if (this.#items.length >= this.#rejoinTarget) this.#release?.();
  }

  /** Queues a clear; it ends a rejoin wait at once. */
  pushClear(op: PendingClear): void {
    this.#items.push(op);
    this.#release?.();
  }

  /** Ends a rejoin wait now (the store is closing). */
  release(): void {
    this.#release?.();
  }

  /** The next write: a clear, or every record queued before the next clear; `undefined` when empty. */
  take(): NextWrite | undefined {
    const head = this.#items[0];
    if (head === undefined) return undefined;
    if (head.kind === 'clear') {
      this.#items.shift();
      return head;
    }
    let count = 1;
    while (count < this.#items.length && this.#items[count]!.kind === 'record') count++;
    return this.#items.splice(0, count) as PendingRecord[];
  }

  /**
   * Holds the next batch until the clients the last one just answered have sent their next creates
   * (`target` records queued: those waiting already, plus one per answer), or REJOIN_WAIT_MS passes.
   * Without it, the answered clients come back while the few creates that arrived during the write
   * are being written, and the load splits into two half-sized batches forever, each paying the whole
   * cost of a write (mostly kernel time and thread-pool hand-offs, not bytes). A lone client's next
   * create meets the target alone, so it is written at once; only creates that arrive while answered
   * clients are still missing wait, at most REJOIN_WAIT_MS. Every create is still answered only once
   * its batch is durable.
   */
  async rejoin(target: number): Promise<void> {
    if (this.#items.length >= target) return;
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
}

// Batches up to this many bytes (about 400 records of a typical plant) are framed into one kept buffer.
const BATCH_BUFFER = 64 * 1024;

/** Frames batches into their bytes, in one buffer kept from batch to batch while they fit. */
export class BatchFramer {
  readonly #kept = Buffer.allocUnsafe(BATCH_BUFFER);

  /**
   * The bytes of `batch` written at byte `start`: every record names that offset as its batch's
   * start, so that recovery can tell a torn last batch from damage to acknowledged ones. One field
   * per batch. The result may be the kept buffer: the caller writes it before framing the next batch
   * (the store writes one batch at a time).
   */
  frame(batch: readonly PendingRecord[], start: number): Buffer {
    const field = batchField(start);
    let bound = 0;
    for (const record of batch) bound += lineBound(record.json);
    // A burst larger than the kept buffer gets its own; the kept one stays small.
    const buf = bound > this.#kept.length ? Buffer.allocUnsafe(bound) : this.#kept;
    let offset = 0;
    for (const record of batch) offset = writeLine(buf, offset, record.json, field);
    return buf.subarray(0, offset);
  }
}

/**
 * The span of the write and sync of `batch` (INTERNAL: the store's own work), the child of the first
 * request it serves and linked to each waiting now; undefined, with nothing allocated, when none of
 * them is traced (no OpenTelemetry SDK registered, or inserts made outside any span).
 */
export function startWriteSpan(batch: readonly PendingRecord[]): StoreSpan | undefined {
  let links: TraceLink[] | undefined;
  for (const record of batch) {
    if (record.links === undefined) continue;
    if (links === undefined) links = [...record.links];
    else links.push(...record.links);
  }
  if (links === undefined) return undefined;
  return startStoreSpan({
    name: 'plant_store.file.write',
    kind: 'internal',
    attributes: { 'plant_store.batch.size': batch.length },
    links,
  });
}
