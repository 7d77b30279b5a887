// A store of your own in ten lines: a Map, checked by the conformance suite in map-store.test.ts.
import { toStoredPlant, type PlantStore, type StoredPlant } from '@plant-store/core';

export function createMapStore(): PlantStore {
  const plants = new Map<bigint, StoredPlant>();
  return {
    async insert(plant) {
      const stored = toStoredPlant(plant); // refuses what is not a plant, keeps only the spec's fields
      const existing = plants.get(stored.id);
      if (existing !== undefined) return { created: false, existing };
      plants.set(stored.id, stored); // no await between the check and the set: atomic per id
      return { created: true };
    },
    async checkHealth() {},
  };
}
