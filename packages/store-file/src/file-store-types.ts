// What a file store reports about itself: shared by the public interface and the engine that fills it in.

/** Counters of the work a file store did since it was opened. */
export interface FileStoreStats {
  /** Plants written (each once). */
  readonly records: number;
  /** `write` calls that wrote a batch of records (the zero-filling ahead of the log is not counted). */
  readonly writes: number;
  /**
   * Durable points of batches: `fdatasync` calls, or O_DSYNC writes where the file is opened with
   * O_DSYNC. Group commit makes this far smaller than `records` under concurrency.
   */
  readonly syncs: number;
}

/** What opening found, for the caller to log. */
export interface FileStoreRecovery {
  /** Plants replayed from the log. */
  readonly plants: number;
  /**
   * Bytes of a torn last write that were cut away (0 when the log was whole): a partial tail, or a
   * whole last batch that a crash left with holes before intact records of its own.
   */
  readonly truncatedBytes: number;
  /** Where the cut was made, when one was. */
  readonly truncatedAt?: number;
  /** Why the tail was torn, when it was. */
  readonly reason?: string;
  /** The data file was created by this open. */
  readonly created: boolean;
  /**
   * The fields of this build's plants that the file's header did not list, when there were any: the
   * header was replaced by one that lists them before any record was written, so a build that does
   * not know them now refuses the file rather than misread its records.
   */
  readonly addedFields?: readonly string[];
}
