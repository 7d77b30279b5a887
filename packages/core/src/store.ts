import type { StoredPlant } from './generated/plant-codec.js';

export type { PlantInput, StoredPlant } from './generated/plant-codec.js';
export { samePlant, toStoredPlant } from './generated/plant-codec.js';

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
