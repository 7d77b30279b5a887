/** Why a file store refused to open or to go on writing. */
export type FileStoreErrorCode =
  /** Another live process holds the data file's lock. */
  | 'locked'
  /** The file is damaged before intact records: opening it would drop stored plants. */
  | 'corrupt'
  /**
   * The file is not a plant store log, or one this build does not read in full: another format
   * version, a field it does not know or holds as another kind, or a record its rules refuse.
   */
  | 'unsupported'
  /** Reading, writing or syncing the file failed. */
  | 'io'
  /** The store was closed. */
  | 'closed';

/**
 * What `openFileStore` and a file store throw. The message names the file (and the byte offset of
 * damage) and says what to do, because whoever reads it is running the server, not debugging it.
 */
export class FileStoreError extends Error {
  override readonly name = 'FileStoreError';
  /** A machine-readable reason; branch on this, not on the message. */
  readonly code: FileStoreErrorCode;
  /** The data file concerned. */
  readonly path: string;
  /** The byte offset of the damage, for `corrupt`; of the record this build cannot read, for `unsupported`. */
  readonly offset: number | undefined;

  constructor(
    code: FileStoreErrorCode,
    path: string,
    message: string,
    options: { offset?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = path;
    this.offset = options.offset;
  }
}
