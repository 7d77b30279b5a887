// The conformance suite must fail a store that breaks a rule: each broken store here breaks one, and
// the suite is run on it with a runner that records which of its tests fail.
import { describe, expect, it } from 'vitest';
import {
  PLANT_FIELDS,
  type PlantField,
  StoreUnavailableError,
  toStoredPlant,
  type InsertResult,
  type PlantStore,
  type StoredPlant,
} from '../src/index.js';
import { edgeValues } from '../src/internal/conformance-values.js';
import { testPlantStore, type PlantStoreTestOptions } from '../src/testing.js';

/** Runs the suite on `create` and resolves to the names of the tests that failed. */
async function failuresOf(
  create: PlantStoreTestOptions['create'],
  more: Partial<PlantStoreTestOptions> = {},
): Promise<string[]> {
  const tests: Array<{ name: string; body: () => Promise<void> }> = [];
  testPlantStore(
    { describe: (_name, body) => body(), it: (name, body) => tests.push({ name, body }) },
    { name: 'broken', create, numRuns: 30, ...more },
  );
  const failed: string[] = [];
  for (const test of tests) await test.body().catch(() => failed.push(test.name));
  return failed;
}

/** A correct Map store, with one step replaceable so each broken store breaks exactly one rule. */
function mapStore(options: {
  key?: (id: bigint) => unknown;
  keep?: (plant: StoredPlant) => StoredPlant;
  check?: (plant: unknown) => StoredPlant;
  overwrite?: boolean;
  yieldBeforeSet?: boolean;
}): PlantStore {
  const plants = new Map<unknown, StoredPlant>();
  const key = options.key ?? ((id) => id);
  return {
    async insert(plant): Promise<InsertResult> {
      const stored = (options.check ?? toStoredPlant)(plant);
      const existing = plants.get(key(stored.id));
      if (options.yieldBeforeSet) await Promise.resolve();
      if (existing !== undefined && !options.overwrite) return { created: false, existing };
      plants.set(key(stored.id), (options.keep ?? ((p) => p))(stored));
      return existing === undefined ? { created: true } : { created: false, existing };
    },
    async checkHealth() {},
  };
}

/** A Map store with a backend that can go away: `down` makes it throw `failure()`. */
function flakyStore(failure: () => Error): PlantStore & { down: boolean } {
  const inner = mapStore({});
  const store = {
    down: false,
    insert: async (plant: StoredPlant) => {
      if (store.down) throw failure();
      return inner.insert(plant);
    },
    checkHealth: async () => {
      if (store.down) throw failure();
    },
  };
  return store;
}
const takeAway = async (store: PlantStore) => {
  (store as PlantStore & { down: boolean }).down = true;
  return async () => {
    (store as PlantStore & { down: boolean }).down = false;
  };
};
const AWAY = 'rejects with StoreUnavailableError while its backend is away, then serves again by itself';
const EDGES =
  "keeps every field's value exactly at its edges: U+0000, lone surrogates, astral characters and 70,000 characters in strings; bounds and extremes of numbers";
const OVERWRITES =
  'never overwrites: a plant differing in any one field (another value, absent or present) is answered the one stored first, which stays';
const REFUSES = 'refuses what is not a plant with a TypeError or RangeError, and stores nothing of it';

describe('the conformance suite', () => {
  it('passes a store that throws StoreUnavailableError while its backend is away', async () => {
    const failed = await failuresOf(() => flakyStore(() => new StoreUnavailableError('down')), {
      makeUnavailable: takeAway,
    });
    expect(failed).toEqual([]);
  });

  it('fails a store that throws a plain Error while its backend is away (a 500 instead of a 503)', async () => {
    const failed = await failuresOf(() => flakyStore(() => new Error('down')), { makeUnavailable: takeAway });
    expect(failed).toEqual([AWAY]);
  });

  it('passes a correct store', async () => {
    expect(await failuresOf(() => mapStore({}))).toEqual([]);
  });

  it('fails a store that rounds ids through a JS number', async () => {
    const failed = await failuresOf(() => mapStore({ key: (id) => Number(id) }));
    expect(failed).toContain('keeps every int64 id exactly, at the edges of int64, int32 and 2^53');
  });

  it('fails a store that overwrites a taken id', async () => {
    const failed = await failuresOf(() => mapStore({ overwrite: true }));
    expect(failed).toContain(OVERWRITES);
  });

  // Each broken store below breaks a rule for one field: the fields whose values the break can change.
  const utf8 = (text: string) => new TextDecoder().decode(new TextEncoder().encode(text)).replaceAll('\u0000', '');
  const changes = (field: PlantField, change: (value: unknown) => unknown) =>
    edgeValues(field).some((value) => !Object.is(change(value), value));
  const breaking = (change: (value: unknown) => unknown) => (field: PlantField) => {
    const keep = (p: StoredPlant) => {
      const value = (p as unknown as Record<string, unknown>)[field.name];
      return { ...p, [field.name]: value === undefined ? value : change(value) };
    };
    return () => mapStore({ keep });
  };
  const throughUtf8 = (value: unknown) => (typeof value === 'string' ? utf8(value) : value);
  const asFloat = (value: unknown) => (typeof value === 'number' ? Math.fround(value) : value);
  const falsyAsNone = (value: unknown) => (value ? value : undefined);

  it.each(PLANT_FIELDS.filter((field) => changes(field, throughUtf8)))(
    'fails a store that loses U+0000 or lone surrogates of $name on the way through UTF-8',
    async (field) => {
      expect(await failuresOf(breaking(throughUtf8)(field))).toContain(EDGES);
    },
  );

  it.each(PLANT_FIELDS.filter((field) => changes(field, asFloat)))(
    'fails a store that keeps $name as a float, not a double',
    async (field) => {
      expect(await failuresOf(breaking(asFloat)(field))).toContain(EDGES);
    },
  );

  it.each(PLANT_FIELDS.filter((field) => !field.required && changes(field, falsyAsNone)))(
    'fails a store that keeps an empty, zero or false $name as none',
    async (field) => {
      expect(await failuresOf(breaking(falsyAsNone)(field))).toContain(
        'keeps an absent optional field apart from an empty, zero or false one',
      );
    },
  );

  it.each(PLANT_FIELDS.filter((field) => field.name !== 'id'))(
    'fails a store that drops $name, keeping the rest',
    async (field) => {
      const failed = await failuresOf(breaking(() => undefined)(field));
      expect(failed).toContain(OVERWRITES);
      expect(failed).toContain(EDGES);
    },
  );

  it.each(PLANT_FIELDS)('fails a store that stores a plant whose $name no request could carry', async (field) => {
    // Checks every field but this one, as a store that checks by hand and forgot it would.
    const check = (p: unknown) => {
      const value = (p as Record<string, unknown>)?.[field.name];
      const stored = toStoredPlant({ ...(p as object), [field.name]: edgeValues(field)[0] });
      return { ...stored, [field.name]: value } as StoredPlant;
    };
    expect(await failuresOf(() => mapStore({ check }))).toContain(REFUSES);
  });

  it('fails a store that lets an await fall between its check and its set', async () => {
    const failed = await failuresOf(() => mapStore({ yieldBeforeSet: true }));
    expect(failed).toContain(
      'lets exactly one of 20 concurrent creates of one new id win; the others answer the winner',
    );
    expect(failed).toContain('gives each id of a concurrent burst one winner, answered to all its losers (property)');
  });

  it('fails a store that stores what is not a plant (an id outside int64 wrapped into it)', async () => {
    const failed = await failuresOf(() =>
      mapStore({ check: (p) => ({ ...(p as StoredPlant), id: BigInt.asIntN(64, (p as StoredPlant).id) }) }),
    );
    expect(failed).toContain(REFUSES);
  });

  it('fails a store whose health check rejects while it is open', async () => {
    const failed = await failuresOf(() => ({ ...mapStore({}), checkHealth: () => Promise.reject(new Error('down')) }));
    expect(failed).toEqual(['passes its health check while open']);
  });
});
