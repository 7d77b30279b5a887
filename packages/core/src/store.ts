/**
 * A plant as the store keeps it: the exact int64 id, the name, and the tag when it has one.
 * (DECISIONS.md: the id is never rounded; unknown request fields are never stored.)
 */
export interface StoredPlant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** What {@link PlantStore.insert} found: the plant is new and now stored, or the id was taken. */
export type InsertResult =
  | { readonly created: true }
  | { readonly created: false; readonly existing: StoredPlant };

/**
 * Where plants live. Asynchronous so that durable or remote stores plug in; `insert` is atomic per
 * id, which is what makes concurrent creates of one id resolve as DECISIONS.md says (one wins, the
 * others replay or conflict).
 */
export interface PlantStore {
  /** Stores `plant` unless its id is taken; never overwrites. Resolves once the plant is durable. */
  insert(plant: StoredPlant): Promise<InsertResult>;
  /** The plant stored under `id`, if any. */
  get(id: bigint): Promise<StoredPlant | undefined>;
  /** Every stored plant, in insertion order. */
  list(): Promise<StoredPlant[]>;
  /** How many plants are stored. */
  size(): Promise<number>;
  /** Removes every plant (tests use it between cases). */
  clear(): Promise<void>;
  /** Flushes and releases what the store holds open; the store is unusable afterwards. */
  close(): Promise<void>;
}
