// How the conformance suite of @plant-store/core/testing compares and shows what a store answered.

/** Deep equality of plain data (objects by own keys, everything else by Object.is), as a runner without `expect` needs it. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** A value for a message: bigints with their n, long strings cut. */
export function show(value: unknown): string {
  const text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
