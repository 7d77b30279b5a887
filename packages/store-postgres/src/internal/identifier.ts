// SQL identifiers: the schema's, the table's and every column's name, quoted as given.

/** `name` as a quoted SQL identifier, after checking PostgreSQL would keep it whole. */
export function quoteIdentifier(name: unknown, what: string): string {
  if (typeof name !== 'string') throw new TypeError(`${what} must be a string; got ${typeof name}`);
  // PostgreSQL truncates an identifier past 63 bytes, which would silently name another table, and a
  // lone surrogate has no UTF-8 (the round trip through a Buffer changes it).
  if (name === '' || Buffer.byteLength(name) > 63 || name.includes('\u0000') || Buffer.from(name).toString() !== name) {
    throw new RangeError(`${what} must be 1 to 63 bytes of UTF-8 without U+0000; got ${JSON.stringify(name)}`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}
