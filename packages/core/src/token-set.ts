import { isToken68 } from './internal/token68.js';

/** An entry of a token set given by its SHA-256: `sha256:` and 64 hex digits. */
const SHA256_ENTRY = /^sha256:([0-9a-fA-F]{64})$/;

/**
 * A set of accepted bearer tokens that can be replaced while the app serves, for token files that
 * rotate without a restart. Pass it as the app's `tokens`; `replace()` swaps every entry at once, so a
 * request is judged against the old set or the new one, never a mix.
 */
export interface TokenSet {
  /**
   * Replaces the entries. Throws a TypeError, and keeps the current entries, when the list is empty or
   * an entry is neither a token68 token nor `sha256:<64 hex digits>`: a bad list never locks everyone out.
   */
  replace(entries: readonly string[]): void;
  /** How many entries the set holds. */
  readonly size: number;
}

/** One compiled entry: its bytes (the token's, or its digest's) and the key rate limits count it under. */
interface Entry {
  readonly bytes: Uint8Array;
  readonly key: string;
}

/** The entries of one generation of a set: compared plainly, or by the SHA-256 of the presented token. */
export interface TokenEntries {
  readonly plain: readonly Entry[];
  readonly hashed: readonly Entry[];
}

/** The internals the app reads; a symbol so that they stay off the public type. */
export const ENTRIES: unique symbol = Symbol('plant-store.token-entries');

class ReplaceableTokenSet implements TokenSet {
  [ENTRIES]: TokenEntries;

  constructor(entries: readonly string[]) {
    this[ENTRIES] = compileEntries(entries);
  }

  replace(entries: readonly string[]): void {
    // Compiled first, assigned after: a TypeError leaves the set as it was.
    this[ENTRIES] = compileEntries(entries);
  }

  get size(): number {
    return this[ENTRIES].plain.length + this[ENTRIES].hashed.length;
  }
}

/**
 * Makes a {@link TokenSet} of bearer tokens: each entry is a token (token68: `A-Z a-z 0-9 - . _ ~ + /`
 * then optional `=`), or `sha256:<hex>`, the SHA-256 of one, so a file of entries need not hold
 * secrets in the clear. Entries are compared in constant time. Throws a TypeError for an empty list
 * or a malformed entry (the entry itself is never quoted: it may be a secret).
 *
 * @example
 * const tokens = createTokenSet(['s3cret', 'sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b']);
 * const app = createPlantStoreApp({ tokens });
 * tokens.replace(['n3w-s3cret']); // the old tokens are refused from the next request on
 */
export function createTokenSet(entries: readonly string[]): TokenSet {
  return new ReplaceableTokenSet(entries);
}

/** Whether `value` is a set made by {@link createTokenSet}. */
export function isTokenSet(value: unknown): value is TokenSet & { [ENTRIES]: TokenEntries } {
  return value instanceof ReplaceableTokenSet;
}

/**
 * Reads the text of a token file: one entry per line (a token, or `sha256:<hex>`), blank lines and
 * lines starting with `#` ignored, spaces around an entry trimmed. Throws a TypeError naming the first
 * bad line by number (never its content), or saying the file has no entry.
 *
 * @example
 * parseTokenFile('# deploy bot\nsha256:2bb8…a25b\n\nci-token-2\n'); // ['sha256:2bb8…a25b', 'ci-token-2']
 */
export function parseTokenFile(text: string): string[] {
  if (typeof text !== 'string') throw new TypeError('a token file is text');
  const entries: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!isEntry(line)) {
      throw new TypeError(
        `line ${i + 1} is not a token entry: a token is 1 or more of A-Z a-z 0-9 - . _ ~ + / (then optional =), or sha256: and 64 hex digits`,
      );
    }
    entries.push(line);
  }
  if (entries.length === 0) throw new TypeError('the token file has no entry (only blank lines and comments)');
  return entries;
}

function isEntry(entry: string): boolean {
  return typeof entry === 'string' && (SHA256_ENTRY.test(entry) || (!entry.startsWith('sha256:') && isToken68(entry)));
}

/** Checks and compiles a list of entries; shared by the plain `tokens` list and token sets. */
export function compileEntries(entries: readonly string[]): TokenEntries {
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new TypeError('tokens must be a non-empty list of bearer tokens, or "any"');
  }
  const encoder = new TextEncoder();
  const plain: Entry[] = [];
  const hashed: Entry[] = [];
  for (const entry of entries) {
    if (!isEntry(entry)) {
      throw new TypeError(
        'every token must be a non-empty token68 string (A-Z a-z 0-9 - . _ ~ + / then optional =), or sha256: and 64 hex digits',
      );
    }
    const hex = SHA256_ENTRY.exec(entry)?.[1];
    if (hex === undefined) {
      plain.push({ bytes: encoder.encode(entry), key: `token:${entry}` });
    } else {
      const bytes = new Uint8Array(32);
      for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
      hashed.push({ bytes, key: `token:sha256:${hex.toLowerCase()}` });
    }
  }
  return { plain, hashed };
}
