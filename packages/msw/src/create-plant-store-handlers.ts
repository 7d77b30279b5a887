import {
  DEFAULT_BASE_URL,
  createMemoryStore,
  createPlantStoreApp,
  samePlant,
  toStoredPlant,
  type PlantInput,
  type MemoryStore,
  type PlantStore,
  type PlantStoreApp,
  type StoredPlant,
} from '@plant-store/core';
import { http, type HttpHandler } from 'msw';
import { createPlantStoreScenarios, type PlantStoreScenarios } from './create-plant-store-scenarios.js';
import { resolveBaseUrl } from './internal/base-url.js';

/** Options of {@link createPlantStoreHandlers}; `S` is the type of the store they write to. */
export interface PlantStoreHandlersOptions<S extends PlantStore = MemoryStore> {
  /**
   * Where the mocked API lives: an absolute URL (`https://api.example/v1`), or a path (`/api`) that
   * MSW resolves against the page's origin, for same-origin browser apps. A path prefix becomes the
   * service's base path. Default: `http://127.0.0.1:4010`, the reference server's default address.
   */
  readonly baseUrl?: string;
  /**
   * Accepted bearer tokens. Default `"any"`: every well-formed bearer token is accepted, so tests need
   * no secret, yet a missing or malformed `Authorization` header still answers 401. A list makes the
   * mocks strict: other tokens answer 401 `40102`.
   */
  readonly tokens?: readonly string[] | 'any';
  /** Where created plants go. Default: a new memory store, so each handler set starts empty. */
  readonly store?: S;
  /**
   * Plants the store holds before the first request (and again after `reset()`), e.g. `makePlants(20)`.
   * Ids may be bigints or safe-integer numbers. A plant that is not one, or two plants with one id and
   * different fields, is a TypeError here; requests wait until the store holds them all.
   */
  readonly initialPlants?: readonly InitialPlant[];
  /** The largest accepted body in bytes. Default: the service's 1 MiB. */
  readonly bodyLimit?: number;
  /** Called with every unexpected fault (the 500s) and its request id, e.g. to fail the test. */
  readonly onError?: (error: unknown, requestId: string) => void;
  /**
   * What the catch-all after the operations answers with the service's 404/405. `"base"` (default):
   * every path and method under `baseUrl`, so nothing there escapes to the network. `"plants"`: only
   * `/plants` and the paths below it, so an app's own endpoints under the same base (`/api/users`) reach
   * the app's handlers whatever their order. `false`: no catch-all, `handlers` holds the operations only.
   */
  readonly catchAll?: 'base' | 'plants' | false;
}

/** A plant to seed the store with: the spec's fields, each int64 (the id) as a bigint or a safe-integer number. */
export type InitialPlant = PlantInput;

/** One set of Plant Store mocks: the MSW handlers, the store behind them, and ready-made scenarios. */
export interface PlantStoreHandlers<S extends PlantStore = MemoryStore> {
  /**
   * Every handler, for `setupServer(...handlers)` / `setupWorker(...handlers)`: `createPlant` first,
   * then the catch-all that answers other paths and methods with the service's 404/405 (under `baseUrl`
   * by default; see the `catchAll` option). MSW answers with the first handler that returns a response,
   * so with the default catch-all an app's own handlers under the same base must come before these.
   */
  readonly handlers: HttpHandler[];
  /** The `createPlant` handler alone (`POST {baseUrl}/plants`). */
  readonly createPlant: HttpHandler;
  /** The store the handlers write to: seed it before a test, read it after, clear it between tests. */
  readonly store: S;
  /** The core application that answers; `app.fetch(request)` is what every handler calls. */
  readonly app: PlantStoreApp<S>;
  /** The URL the handlers match, without a trailing slash (e.g. `http://127.0.0.1:4010`, `/api`). */
  readonly baseUrl: string;
  /** Typed failure, network-error and slow answers for `createPlant`, to pass to `server.use()`. */
  readonly scenarios: PlantStoreScenarios;
  /**
   * Empties the store and puts the `initialPlants` back, for `afterEach`: every test starts from the
   * same store. Needs a store with `clear()` (the memory store has it).
   */
  reset(): Promise<void>;
}

/**
 * Creates MSW request handlers (msw 2 and 3) for the Plant Store API. The handlers run the reference server's own
 * code (`@plant-store/core`), so every rule of the service (validation, idempotency by id, exact int64
 * ids, error codes, authentication) holds in the mocks, byte for byte. One handler per operation, so a
 * test can override `createPlant` alone with `server.use()`.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createPlantStoreHandlers } from '@plant-store/msw';
 *
 * const mocks = createPlantStoreHandlers();
 * const server = setupServer(...mocks.handlers);
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
 * afterEach(async () => { server.resetHandlers(); await mocks.store.clear(); });
 * afterAll(() => server.close());
 * ```
 */
export function createPlantStoreHandlers<S extends PlantStore = MemoryStore>(
  options: PlantStoreHandlersOptions<S> = {},
): PlantStoreHandlers<S> {
  const { match, pattern, basePath } = resolveBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
  // Without a store option S is its default, MemoryStore: the cast is what that default means.
  const store = options.store ?? (createMemoryStore() as unknown as S);
  const app = createPlantStoreApp({
    // the service's rules, mocks' defaults: tests need no secret, malformed credentials still fail.
    tokens: options.tokens ?? 'any',
    store,
    ...(basePath !== undefined && { basePath }),
    ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    ...(options.onError !== undefined && { onError: options.onError }),
  });
  const initialPlants = checkInitialPlants(options.initialPlants ?? []);
  // While the store is being seeded, requests wait for it; then they go straight to the app again.
  let seeding: Promise<void> | undefined;
  const seed = () => {
    const done = insertAll(store, initialPlants).then(() => {
      if (seeding === done) seeding = undefined;
    });
    // Kept rejected for the requests to fail on, but not reported as unhandled when none comes.
    done.catch(() => undefined);
    seeding = done;
    return done;
  };
  if (initialPlants.length > 0) void seed();
  const createPlantUrl = `${pattern}/plants`;
  const createPlant = http.post(createPlantUrl, ({ request }) =>
    seeding === undefined ? app.fetch(request) : seeding.then(() => app.fetch(request)),
  );
  return {
    handlers: [createPlant, ...catchAllHandlers(options.catchAll ?? 'base', pattern, basePath, app)],
    createPlant,
    store,
    app,
    baseUrl: match,
    scenarios: createPlantStoreScenarios(createPlantUrl, app, {
      ...(basePath !== undefined && { basePath }),
      ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    }),
    async reset() {
      const clear = (store as Partial<MemoryStore>).clear;
      if (typeof clear !== 'function') {
        throw new TypeError('reset() needs a store with clear(), as the memory store has');
      }
      await seeding?.catch(() => undefined);
      await clear.call(store);
      await seed();
    },
  };
}

/** The initial plants as the store keeps them, refusing what no request could create and ids given twice. */
function checkInitialPlants(plants: readonly InitialPlant[]): StoredPlant[] {
  const byId = new Map<bigint, StoredPlant>();
  return plants.map((plant) => {
    const stored = toStoredPlant(plant);
    const other = byId.get(stored.id);
    if (other !== undefined && !samePlant(other, stored)) {
      throw new TypeError(`initialPlants holds id ${stored.id} twice, with different fields`);
    }
    byId.set(stored.id, stored);
    return stored;
  });
}

/**
 * Inserts the plants, all started at once: a memory store holds them all when this returns (its inserts
 * run synchronously). One whose id the store holds with another plant fails the seeding.
 */
async function insertAll(store: PlantStore, plants: readonly StoredPlant[]): Promise<void> {
  const results = await Promise.all(plants.map((plant) => store.insert(plant)));
  results.forEach((result, i) => {
    const plant = plants[i]!;
    if (!result.created && !samePlant(result.existing, plant)) {
      throw new TypeError(`the store holds id ${plant.id} already, with other fields than in initialPlants`);
    }
  });
}

/**
 * The handlers that send what no operation matched to the core too, so a wrong path or method answers
 * the server's 404/405 instead of escaping to the network. A prefix is matched by itself as well
 * (`/api`, `/api/plants`): MSW's `/*` needs at least the slash after it.
 */
function catchAllHandlers(
  catchAll: PlantStoreHandlersOptions['catchAll'],
  pattern: string,
  basePath: string | undefined,
  app: Pick<PlantStoreApp<PlantStore>, 'fetch'>,
): HttpHandler[] {
  const toCore = (path: string) => http.all(path, ({ request }) => app.fetch(request));
  switch (catchAll) {
    case 'base':
      return basePath === undefined ? [toCore(`${pattern}/*`)] : [toCore(`${pattern}/*`), toCore(pattern)];
    case 'plants':
      return [toCore(`${pattern}/plants/*`), toCore(`${pattern}/plants`)];
    case false:
      return [];
    default:
      // A JavaScript caller's typo must not quietly drop the catch-all.
      throw new TypeError(`catchAll must be "base", "plants" or false, got ${JSON.stringify(catchAll)}`);
  }
}
