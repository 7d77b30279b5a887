// The public surface of @plant-store/core/testing: the conformance suite every PlantStore passes.
// Its own entry point, so that fast-check (a peer dependency of this entry only) never reaches the
// core's main entry.
import fc from 'fast-check';
import type { InsertResult, PlantStore, StoredPlant } from './store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { INT64_MAX, INT64_MIN } from './internal/int64.js';
import { deepEqual, show } from './internal/conformance-compare.js';
import {
  anyPlant,
  badValues,
  barePlant,
  EDGE_IDS,
  edgeValues,
  fewIds,
  fits,
  fullPlant,
  KEY,
  keyId,
  OPTIONAL_FIELDS,
  otherValue,
  type Plant,
  plantOf,
  VALUE_FIELDS,
  without,
} from './internal/conformance-values.js';

/**
 * The test runner's functions the suite registers its tests with: vitest's and jest's `describe`, `it`
 * and `expect` fit as they are. Without `expect` the suite throws its own Error on a mismatch, so any
 * runner whose `it` fails a test on a rejected promise works (node:test's `describe`/`it` too).
 */
export interface PlantStoreTestRunner {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
  /** `expect(actual, message).toEqual(expected)`, as vitest and jest have it. */
  expect?: (actual: unknown, message?: string) => { toEqual(expected: unknown): void };
}

/** What the suite needs to know of the store under test. */
export interface PlantStoreTestOptions {
  /** Shown in the suite's name, e.g. `'memory'`. */
  readonly name: string;
  /** A new, empty store. Called once per test; the suite closes each store it made. */
  readonly create: () => PlantStore | Promise<PlantStore>;
  /**
   * For durable stores: closes `store` and opens the same data again. With it, the suite also checks
   * that every plant, id and string survives a close and a reopen.
   */
  readonly reopen?: (store: PlantStore) => Promise<PlantStore>;
  /**
   * For stores that several processes share (a database): another store on the same data, as a
   * second server would open it. With it, concurrent racers are split between the two.
   */
  readonly openPeer?: (store: PlantStore) => Promise<PlantStore>;
  /**
   * For stores with a backend that can go away (a database): takes it away (stops the server, cuts the
   * connections) and resolves to a function that brings it back. With it, the suite checks that inserts
   * and the health check reject with `StoreUnavailableError` meanwhile, that nothing half-done is
   * acknowledged, and that the store serves again once the backend is back, by itself.
   */
  readonly makeUnavailable?: (store: PlantStore) => Promise<() => Promise<void>>;
  /** Runs of each property test. Default 100; a store with a slow round trip may ask for fewer. */
  readonly numRuns?: number;
}

/**
 * Registers the conformance suite of a {@link PlantStore}: every rule the service relies on, checked
 * through `insert` alone (so a store needs nothing else to be tested), on every field of the plant's
 * shape in the service's OpenAPI document (`PLANT_FIELDS`), so a field added to the spec is checked at the next
 * `npm run generate`: create, replay and conflict answers (another value of any one field, or an
 * optional field absent where it was present, is answered the plant stored first), never an overwrite,
 * an absent optional field kept apart from an empty, zero or false one, exact int64 ids at every edge,
 * every field's value kept exactly at its edges (strings with U+0000, lone surrogates, astral characters
 * and 70,000 characters; integers at their bounds; doubles such as 0.1, 5e-324 and 1e300), a plant no
 * request could carry (each field of the wrong type, absent when required, just outside its bounds,
 * lengths, pattern or enum) refused with a TypeError or RangeError leaving nothing behind, one winner
 * among concurrent racers, the health check, and property tests against a model on plants drawn from
 * each field's rules (optional fields absent now and then). The sign of a zero is not checked: JSON
 * and the service's equality cannot tell -0 from 0. The memory, file and PostgreSQL stores run it; a
 * store of your own can too.
 *
 * @example
 * import { describe, expect, it } from 'vitest';
 * import { createMemoryStore } from '@plant-store/core';
 * import { testPlantStore } from '@plant-store/core/testing';
 *
 * testPlantStore({ describe, it, expect }, { name: 'memory', create: createMemoryStore });
 */
export function testPlantStore(runner: PlantStoreTestRunner, options: PlantStoreTestOptions): void {
  const same = (actual: unknown, expected: unknown, what: string): void => {
    if (runner.expect !== undefined) {
      runner.expect(actual, what).toEqual(expected);
    } else if (!deepEqual(actual, expected)) {
      throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
    }
  };
  /** Runs `body` on a new store and closes it, and any store `body` opened, whatever happens. */
  const withStore = (body: (store: PlantStore, opened: PlantStore[]) => Promise<void>) => async () => {
    const opened: PlantStore[] = [await options.create()];
    try {
      await body(opened[0]!, opened);
    } finally {
      for (const store of opened.reverse()) await store.close?.().catch(() => undefined);
    }
  };
  const insert = async (store: PlantStore, plant: Plant | StoredPlant): Promise<InsertResult> => {
    const result = await store.insert(plantOf(plant));
    return result.created ? { created: true } : { created: false, existing: plantOf(result.existing) };
  };
  /** Inserts each plant, expecting it created, then checks that the store answers each exactly. */
  const insertAndReadBack = async (store: PlantStore, plants: readonly Plant[], what: string) => {
    for (const plant of plants) same(await insert(store, plant), { created: true }, `insert of ${show(plant)}`);
    await readBack(store, plants, what);
  };
  /** Checks that the store answers each plant, exactly, to another plant under its id. */
  const readBack = async (store: PlantStore, plants: readonly Plant[], what: string) => {
    for (const plant of plants) {
      const id = plant[KEY.name] as bigint;
      same(await insert(store, barePlant(id, 1)), { created: false, existing: plantOf(plant) }, `${what}: id ${id}`);
    }
  };
  const numRuns = options.numRuns ?? 100;

  /** The plant under each edge id of the key. */
  const idEdgePlants = (): Plant[] =>
    [...EDGE_IDS, ...edgeValues(KEY)]
      .filter((id, i, all) => fits(KEY, id) && all.indexOf(id) === i)
      .map((id, i) => fullPlant(id as bigint, i));
  /** A plant per edge value of each field, under ids from `from` on; the other fields vary too. */
  const valueEdgePlants = (from: number): Plant[] =>
    VALUE_FIELDS.flatMap((field) => edgeValues(field).map((value) => ({ field, value }))).map(
      ({ field, value }, i) => ({
        ...fullPlant(keyId(from + i), i),
        [field.name]: value,
      }),
    );
  /** For each optional field, a plant without it and one with its emptiest value (empty, zero, false), from `from` on. */
  const absentAndEmptyPlants = (from: number): Plant[] =>
    OPTIONAL_FIELDS.flatMap((field, i) => {
      const values = edgeValues(field);
      const emptiest = values.find((value) => value === '' || value === 0 || value === 0n || value === false);
      return [
        barePlant(keyId(from + 2 * i)),
        { ...barePlant(keyId(from + 2 * i + 1)), [field.name]: emptiest ?? values[0] },
      ];
    });

  runner.describe(`PlantStore conformance: ${options.name}`, () => {
    runner.it(
      'creates a plant whose id is new, then answers its id as taken with the stored plant',
      withStore(async (store) => {
        const plant = fullPlant(keyId(1));
        same(await insert(store, plant), { created: true }, 'first insert');
        same(await insert(store, plant), { created: false, existing: plantOf(plant) }, 'same plant again');
      }),
    );

    runner.it(
      'never overwrites: a plant differing in any one field (another value, absent or present) is answered the one stored first, which stays',
      withStore(async (store) => {
        const full = fullPlant(keyId(7));
        const bare = barePlant(keyId(8), 1);
        const variants: [Plant, Plant][] = [];
        for (const field of VALUE_FIELDS) {
          const other = otherValue(field, full[field.name]);
          if (other !== undefined) variants.push([full, { ...full, [field.name]: other }]);
          if (!field.required) {
            variants.push([full, without(full, field)]);
            variants.push([bare, { ...bare, [field.name]: full[field.name] }]);
          }
        }
        // The same plant again, which the service answers as a replay.
        variants.push([full, full], [bare, bare]);
        await insert(store, full);
        await insert(store, bare);
        for (const [stored, other] of variants) {
          same(await insert(store, other), { created: false, existing: plantOf(stored) }, `insert of ${show(other)}`);
        }
      }),
    );

    if (OPTIONAL_FIELDS.length > 0) {
      runner.it(
        'keeps an absent optional field apart from an empty, zero or false one',
        withStore(async (store) => {
          await insertAndReadBack(store, absentAndEmptyPlants(1), 'read back');
        }),
      );
    }

    runner.it(
      'keeps every int64 id exactly, at the edges of int64, int32 and 2^53',
      withStore(async (store) => {
        await insertAndReadBack(store, idEdgePlants(), 'read back');
      }),
    );

    runner.it(
      "keeps every field's value exactly at its edges: U+0000, lone surrogates, astral characters and 70,000 characters in strings; bounds and extremes of numbers",
      withStore(async (store) => {
        await insertAndReadBack(store, valueEdgePlants(0), 'read back');
      }),
    );

    runner.it(
      'refuses what is not a plant with a TypeError or RangeError, and stores nothing of it',
      withStore(async (store) => {
        const refused: [unknown, string][] = [[null, 'not an object']];
        for (const { value, why } of badValues(KEY)) {
          refused.push([{ ...fullPlant(keyId(0)), [KEY.name]: value }, `an id ${why}`]);
        }
        const free = new Set<bigint>();
        for (const [value] of refused) for (const id of idsNear((value as Plant | null)?.[KEY.name])) free.add(id);
        for (const field of VALUE_FIELDS) {
          for (const { value, why } of badValues(field)) {
            const id = keyId(1000 + refused.length);
            free.add(id);
            const plant =
              value === undefined ? without(fullPlant(id), field) : { ...fullPlant(id), [field.name]: value };
            refused.push([plant, `${field.name} ${why}`]);
          }
        }
        for (const [plant, why] of refused) {
          const outcome = await store.insert(plant as StoredPlant).then(
            () => 'stored',
            (error: unknown) => error,
          );
          same(
            outcome instanceof TypeError || outcome instanceof RangeError,
            true,
            `insert of ${show(plant)} (${why}) is refused with a TypeError or RangeError`,
          );
        }
        // Had any of them been stored (by its id, or the id it wraps or rounds to), its id would be taken.
        for (const id of free) {
          if (fits(KEY, id)) same(await insert(store, fullPlant(id)), { created: true }, `id ${id} is still free`);
        }
      }),
    );

    runner.it(
      'lets exactly one of 20 concurrent creates of one new id win; the others answer the winner',
      withStore(async (store, opened) => {
        const stores = [store];
        if (options.openPeer !== undefined) {
          const peer = await options.openPeer(store);
          opened.push(peer);
          stores.push(peer);
        }
        for (let round = 0; round < 5; round++) {
          const racers = Array.from({ length: 20 }, (_, i) => plantOf(fullPlant(keyId(round), i)));
          const results = await Promise.all(racers.map((plant, i) => insert(stores[i % stores.length]!, plant)));
          const winners = racers.filter((_, i) => results[i]!.created);
          same(winners.length, 1, `round ${round}: how many racers created`);
          for (const result of results) {
            if (!result.created) same(result.existing, winners[0], `round ${round}: what a losing racer was answered`);
          }
        }
      }),
    );

    runner.it(
      'passes its health check while open',
      withStore(async (store) => {
        await store.checkHealth();
        await insert(store, fullPlant(keyId(1)));
        await store.checkHealth();
      }),
    );

    if (options.makeUnavailable !== undefined) {
      const makeUnavailable = options.makeUnavailable;
      runner.it(
        'rejects with StoreUnavailableError while its backend is away, then serves again by itself',
        withStore(async (store) => {
          const before = fullPlant(keyId(1));
          const whileAway = fullPlant(keyId(2), 1);
          await insert(store, before);
          const restore = await makeUnavailable(store);
          let restored = false;
          try {
            const outcome = await store.insert(plantOf(whileAway)).then(
              () => 'stored',
              (error: unknown) => error,
            );
            same(
              StoreUnavailableError.is(outcome),
              true,
              'an insert while the backend is away rejects with StoreUnavailableError',
            );
            const health = await store.checkHealth().then(
              () => 'healthy',
              (error: unknown) => error,
            );
            same(health instanceof Error, true, 'the health check rejects while the backend is away');
            await restore();
            restored = true;
          } finally {
            if (!restored) await restore();
          }
          // Back: the store reconnects by itself (the suite waits at most 10 s for it).
          const deadline = Date.now() + 10_000;
          for (;;) {
            const ok = await store.checkHealth().then(
              () => true,
              () => false,
            );
            if (ok) break;
            if (Date.now() > deadline)
              throw new Error('the store did not pass its health check within 10 s of its backend coming back');
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await readBack(store, [before], 'the plant stored before');
          // Whether the insert made while away reached the backend is unknown to its caller; a retry settles it.
          const retried = await insert(store, whileAway);
          same(
            retried.created || deepEqual(retried, { created: false, existing: plantOf(whileAway) }),
            true,
            'the retry creates or replays',
          );
        }),
      );
    }

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      runner.it(
        "keeps every plant, id and field's value across a close and a reopen",
        withStore(async (store, opened) => {
          const plants = [...idEdgePlants(), ...valueEdgePlants(1000), ...absentAndEmptyPlants(100_000)];
          for (const plant of plants) await insert(store, plant);
          opened.shift();
          const again = await reopen(store);
          opened.push(again);
          await readBack(again, plants, 'after reopen');
        }),
      );
    }

    runner.it('agrees with a model on any sequence of inserts (property)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(anyPlant(fewIds(-3n, 3n)), { maxLength: 30 }), async (plants) => {
          await withStore(async (store) => {
            const model = new Map<bigint, StoredPlant>();
            for (const plant of plants) {
              const stored = model.get(plant.id);
              if (stored === undefined) model.set(plant.id, plant);
              same(
                await insert(store, plant),
                stored === undefined ? { created: true } : { created: false, existing: stored },
                `insert of ${show(plant)}`,
              );
            }
          })();
        }),
        { numRuns },
      );
    });

    runner.it('gives each id of a concurrent burst one winner, answered to all its losers (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(anyPlant(fc.oneof(fewIds(0n, 4n), fc.constantFrom(KEY.minimum as bigint, KEY.maximum as bigint))), {
            minLength: 1,
            maxLength: 30,
          }),
          async (plants) => {
            await withStore(async (store) => {
              const results = await Promise.all(plants.map((plant) => insert(store, plant)));
              const winners = new Map<bigint, StoredPlant>();
              plants.forEach((plant, i) => {
                if (!results[i]!.created) return;
                same(winners.has(plant.id), false, `a second winner for id ${plant.id}`);
                winners.set(plant.id, plant);
              });
              plants.forEach((plant, i) => {
                const result = results[i]!;
                if (!result.created)
                  same(result.existing, winners.get(plant.id), `what a loser of id ${plant.id} was answered`);
              });
            })();
          },
        ),
        { numRuns },
      );
    });
  });
}

/** The ids a store could have put a refused id under: the int64 it wraps or clamps to, the integers it rounds to. */
function idsNear(value: unknown): bigint[] {
  if (typeof value === 'bigint') return [BigInt.asIntN(64, value), value < 0n ? INT64_MIN : INT64_MAX];
  if (typeof value === 'number' && Number.isFinite(value)) return [BigInt(Math.floor(value)), BigInt(Math.ceil(value))];
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return [BigInt(value)];
  return [];
}
