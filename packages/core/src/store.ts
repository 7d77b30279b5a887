/**
 * A plant as the service stores it: the exact int64 id, the name, and the tag when it has one. What a
 * caller sends is the client's `NewPlant`; what the service answers is a `Plant` (no id).
 * The id is never rounded, and fields other than these three are never stored (the service's rules).
 */
export interface StoredPlant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** What {@link PlantStore.insert} found: the plant is new and now stored, or the id was taken. */
export type InsertResult = { readonly created: true } | { readonly created: false; readonly existing: StoredPlant };

/**
 * What the service needs of the place plants live: the insert it calls on every create, a health
 * check for readiness probes, and an optional `close`. Memory, file and PostgreSQL stores implement
 * it, and so can a store of your own: `@plant-store/core/testing` checks one against every rule
 * (see the core's README, stores).
 *
 * `insert` is atomic per id: of concurrent inserts of one new id exactly one creates, and the others
 * get `{ created: false, existing }` with the winner, which is how concurrent creates of one id
 * resolve to one winner and replays or conflicts (the service's rules, idempotency).
 */
export interface PlantStore {
  /**
   * Stores `plant` unless its id is taken; never overwrites. Resolves once the plant is as durable as
   * the store promises (in memory: at once; on disk or in a database: committed). Strings come back
   * exactly as given, U+0000 and lone surrogates included.
   */
  insert(plant: StoredPlant): Promise<InsertResult>;
  /**
   * Resolves when the store can take inserts now; rejects with an Error saying why when it cannot
   * (closed, failed, its database unreachable). Readiness probes call it, so it must be cheap.
   */
  checkHealth(): Promise<void>;
  /** Flushes and releases what the store holds open; the store is unusable afterwards. */
  close?(): Promise<void>;
}

/**
 * The plant a store keeps for `plant`: checked, and copied down to the fields a store keeps (whatever
 * else the object carries is never stored). Every store calls it first, so a store seeded from plain
 * JS refuses alike what no request could create, instead of storing `{ name: 5 }` as `"5"`.
 * From plain JS the id may also be a safe integer number (seeding with `{ id: 42 }` is unambiguous);
 * it is kept as a bigint. Takes `unknown` because it is the check of what the types cannot vouch for.
 * @throws TypeError naming the field that has the wrong type, RangeError for an id outside int64.
 * @example
 * toStoredPlant({ id: 42, name: 'Oak', extra: 1 }); // { id: 42n, name: 'Oak' }
 */
export function toStoredPlant(plant: unknown): StoredPlant {
  if (typeof plant !== 'object' || plant === null) {
    throw new TypeError(`a plant must be an object with id, name and an optional tag; got ${typeOf(plant)}`);
  }
  const { name, tag } = plant as Record<string, unknown>;
  let id = (plant as Record<string, unknown>).id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) id = BigInt(id);
  if (typeof id !== 'bigint') {
    throw new TypeError(
      `plant id must be a bigint or a safe integer number; got ${typeof id === 'number' ? id : typeOf(id)}`,
    );
  }
  // 2^64 and 0 share their low 64 bits: an id outside int64 would be stored under another one.
  if (BigInt.asIntN(64, id) !== id) throw new RangeError(`plant id ${id} is outside the int64 range`);
  if (typeof name !== 'string') throw new TypeError(`plant name must be a string; got ${typeOf(name)}`);
  if (tag === undefined) return { id, name };
  if (typeof tag !== 'string') throw new TypeError(`plant tag must be a string or absent; got ${typeOf(tag)}`);
  return { id, name, tag };
}

/** `typeof`, with null told apart from objects. */
function typeOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}
