// The public surface of @plant-store/core/testing: the conformance suite every PlantStore passes.
// Its own entry point, so that fast-check (a peer dependency of this entry only) never reaches the
// core's main entry.
import fc from 'fast-check';
import type { InsertResult, PlantStore, StoredPlant } from './store.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { deepEqual, show } from './internal/conformance-compare.js';
import { anyPlant, EDGE_IDS, EDGE_STRINGS, plantOf } from './internal/conformance-values.js';
import { INT64_MAX, INT64_MIN } from './internal/int64.js';

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
 * through `insert` alone (so a store needs nothing else to be tested): create, replay and conflict
 * answers, never an overwrite, exact int64 ids at every edge, every string kept exactly (U+0000, lone
 * surrogates, astral characters), a refused plant leaving nothing behind, one winner among concurrent
 * racers, the health check, and property tests against a model. The memory, file and PostgreSQL
 * stores run it; a store of your own can too.
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
  const insert = async (store: PlantStore, plant: StoredPlant): Promise<InsertResult> => {
    const result = await store.insert(plant);
    return result.created ? { created: true } : { created: false, existing: plantOf(result.existing) };
  };
  const numRuns = options.numRuns ?? 100;

  runner.describe(`PlantStore conformance: ${options.name}`, () => {
    runner.it(
      'creates a plant whose id is new, then answers its id as taken with the stored plant',
      withStore(async (store) => {
        const fern = { id: 1n, name: 'Fern', tag: 'shade' };
        same(await insert(store, fern), { created: true }, 'first insert');
        same(await insert(store, fern), { created: false, existing: fern }, 'same plant again');
      }),
    );

    runner.it(
      'never overwrites: another plant under a taken id answers the one stored first, which stays',
      withStore(async (store) => {
        const first = { id: 7n, name: 'Oak' };
        await insert(store, first);
        for (const other of [
          { id: 7n, name: 'Elm' },
          { id: 7n, name: 'Oak', tag: 'tall' },
          { id: 7n, name: 'Oak', tag: '' },
        ]) {
          same(await insert(store, other), { created: false, existing: first }, `insert of ${show(other)}`);
        }
      }),
    );

    runner.it(
      'keeps an absent tag apart from an empty one',
      withStore(async (store) => {
        await insert(store, { id: 1n, name: 'bare' });
        await insert(store, { id: 2n, name: 'empty tag', tag: '' });
        same(
          await insert(store, { id: 1n, name: 'x' }),
          { created: false, existing: { id: 1n, name: 'bare' } },
          'absent tag',
        );
        same(
          await insert(store, { id: 2n, name: 'x' }),
          { created: false, existing: { id: 2n, name: 'empty tag', tag: '' } },
          'empty tag',
        );
      }),
    );

    runner.it(
      'keeps every int64 id exactly, at the edges of int64, int32 and 2^53',
      withStore(async (store) => {
        for (const id of EDGE_IDS) {
          same(await insert(store, { id, name: `n${id}` }), { created: true }, `insert of id ${id}`);
        }
        for (const id of EDGE_IDS) {
          same(
            await insert(store, { id, name: 'again' }),
            { created: false, existing: { id, name: `n${id}` } },
            `id ${id} read back`,
          );
        }
      }),
    );

    runner.it(
      'keeps every name and tag exactly: U+0000, lone surrogates, astral characters, 70,000 characters',
      withStore(async (store) => {
        const plants = EDGE_STRINGS.map((text, i) => ({
          id: BigInt(i),
          name: text,
          tag: EDGE_STRINGS[EDGE_STRINGS.length - 1 - i]!,
        }));
        for (const plant of plants)
          same(await insert(store, plant), { created: true }, `insert of name ${show(plant.name)}`);
        for (const plant of plants) {
          same(
            await insert(store, { id: plant.id, name: 'other' }),
            { created: false, existing: plant },
            `strings of id ${plant.id} read back`,
          );
        }
      }),
    );

    runner.it(
      'refuses what is not a plant with a TypeError or RangeError, and stores nothing of it',
      withStore(async (store) => {
        const refused: unknown[] = [
          { id: INT64_MAX + 1n, name: 'past int64' },
          { id: 2n ** 64n, name: 'wraps to 0' },
          { id: INT64_MIN - 1n, name: 'below int64' },
          { id: 3n, name: 5 },
          { id: 4n, name: 'tag null', tag: null },
          { id: '5', name: 'string id' },
          null,
        ];
        for (const plant of refused) {
          const outcome = await store.insert(plant as StoredPlant).then(
            () => 'stored',
            (error: unknown) => error,
          );
          same(
            outcome instanceof TypeError || outcome instanceof RangeError,
            true,
            `insert of ${show(plant)} is refused with a TypeError or RangeError`,
          );
        }
        // Had any of them been stored (0 for 2^64 wrapped, 3 to 5 by their ids), these would be taken.
        for (const id of [0n, 3n, 4n, 5n, INT64_MAX, INT64_MIN]) {
          same(await insert(store, { id, name: 'fresh' }), { created: true }, `id ${id} is still free`);
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
          const racers = Array.from({ length: 20 }, (_, i) => ({
            id: BigInt(round),
            name: `racer ${i}`,
            ...(i % 2 === 0 && { tag: 'even' }),
          }));
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
        await insert(store, { id: 1n, name: 'Fern' });
        await store.checkHealth();
      }),
    );

    if (options.makeUnavailable !== undefined) {
      const makeUnavailable = options.makeUnavailable;
      runner.it(
        'rejects with StoreUnavailableError while its backend is away, then serves again by itself',
        withStore(async (store) => {
          await insert(store, { id: 1n, name: 'before' });
          const restore = await makeUnavailable(store);
          let restored = false;
          try {
            const outcome = await store.insert({ id: 2n, name: 'while away' }).then(
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
          same(
            await insert(store, { id: 1n, name: 'x' }),
            { created: false, existing: { id: 1n, name: 'before' } },
            'the plant stored before',
          );
          // Whether the insert made while away reached the backend is unknown to its caller; a retry settles it.
          const retried = await insert(store, { id: 2n, name: 'while away' });
          same(
            retried.created || deepEqual(retried, { created: false, existing: { id: 2n, name: 'while away' } }),
            true,
            'the retry creates or replays',
          );
        }),
      );
    }

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      runner.it(
        'keeps every plant, id and string across a close and a reopen',
        withStore(async (store, opened) => {
          const plants = [
            ...EDGE_IDS.map((id) => ({ id, name: `n${id}` })),
            ...EDGE_STRINGS.map((text, i) => ({ id: 1000n + BigInt(i), name: text, tag: text })),
          ];
          for (const plant of plants) await insert(store, plant);
          opened.shift();
          const again = await reopen(store);
          opened.push(again);
          for (const plant of plants) {
            same(
              await insert(again, { id: plant.id, name: 'other' }),
              { created: false, existing: plant },
              `id ${plant.id} after reopen`,
            );
          }
        }),
      );
    }

    runner.it('agrees with a model on any sequence of inserts (property)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(anyPlant(fc.bigInt({ min: -3n, max: 3n })), { maxLength: 30 }), async (plants) => {
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
          fc.array(anyPlant(fc.oneof(fc.bigInt({ min: 0n, max: 4n }), fc.constantFrom(INT64_MIN, INT64_MAX))), {
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
