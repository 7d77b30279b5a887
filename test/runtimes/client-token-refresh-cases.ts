// The client's token provider and middleware against the real server, as each runtime runs them: the
// same scenarios in Node (client-token-refresh.test.ts) and in Chromium (client-token-refresh-page.ts).
// Each returns what it observed as plain data, for the Node test to judge. The server accepts the
// tokens of its token file: `steady-token`, and one more that the test rotates by SIGHUP.
import { createPlant, createPlantStoreClient, type Middleware, type TokenProvider } from '@plant-store/client';
import { createPlantStoreHandlers } from '@plant-store/msw';
import type { RequestHandler } from 'msw';

/** A token in every generation of the server's token file. */
export const STEADY_TOKEN = 'steady-token';

/** What a scenario may ask of the Node side and of its runtime. */
export interface Hooks {
  /** The API's base URL, base path included. */
  readonly baseUrl: string;
  /** The stand-in for an identity provider's token endpoint: a POST answers the token the server accepts now. */
  readonly tokenUrl: string;
  /** The first of the ids this runtime's scenarios create (the runtimes share one server). */
  readonly firstId: number;
  /** Writes a new token into the server's token file and sends SIGHUP; resolves once the old one is refused. */
  rotate(): Promise<{ refused: string; accepted: string }>;
  /** Answers the next `count` creates with 503 and `Retry-After: 0`, in front of the server. */
  failNext(count: number): Promise<void>;
  /** Starts MSW with `handlers` in this runtime; resolves to its stop. */
  mock(handlers: RequestHandler[]): Promise<() => void>;
}

/** A failure as plain data. */
export interface Failure {
  readonly name: string;
  readonly message: string;
  readonly status?: number;
  readonly code?: number;
}

const failure = (error: unknown): Failure => {
  const { name, message, status, code } = error as Failure;
  return { name, message, status, code };
};

/** Records each attempt's start (`sent`) and the status of its answer. */
function attempts(log: (string | number)[]): Middleware {
  return {
    onRequest() {
      log.push('sent');
    },
    onResponse({ response }) {
      log.push(response.status);
    },
  };
}

/** A provider that gives `cached` until asked to refresh, then what `renew` gives; `asked` lists each `refresh`. */
function provider(cached: string, renew: () => string | Promise<string>) {
  const asked: boolean[] = [];
  const give: TokenProvider = ({ refresh }) => {
    asked.push(refresh);
    return refresh ? renew() : cached;
  };
  return { give, asked };
}

/** The token endpoint's answer. */
async function tokenFrom(hooks: Hooks): Promise<string> {
  const response = await fetch(hooks.tokenUrl, { method: 'POST' });
  return response.text();
}

export const scenarios = {
  /** The file rotated by SIGHUP: the provider's cached token is refused, it refreshes, the create lands once. */
  async rotated(hooks: Hooks) {
    const { refused } = await hooks.rotate();
    const { give, asked } = provider(refused, () => tokenFrom(hooks));
    const log: (string | number)[] = [];
    const id = hooks.firstId;
    const plant = await createPlant(
      give,
      { id, name: 'Rotated fern' },
      { baseUrl: hooks.baseUrl, middleware: [attempts(log)] },
    );
    // Stored: the same id with another name is refused as taken.
    const again = await createPlant(STEADY_TOKEN, { id, name: 'Another' }, { baseUrl: hooks.baseUrl }).then(
      () => 'stored again',
      failure,
    );
    return { plant, asked, log, again };
  },

  /** 20 concurrent creates refused with the same rotated-out token: one refresh, every create retried with it. */
  async singleFlight(hooks: Hooks) {
    const { refused } = await hooks.rotate();
    const { give, asked } = provider(refused, () => tokenFrom(hooks));
    const log: (string | number)[] = [];
    const client = createPlantStoreClient({ baseUrl: hooks.baseUrl, middleware: [attempts(log)] });
    const plants = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.createPlant(give, { id: hooks.firstId + 1 + i, name: 'Flight' })),
    );
    return {
      created: plants.filter((plant) => plant.name === 'Flight').length,
      refreshes: asked.filter(Boolean).length,
      firstTokens: asked.filter((refresh) => !refresh).length,
      statuses: { 401: log.filter((s) => s === 401).length, 200: log.filter((s) => s === 200).length },
    };
  },

  /** The refreshed token is refused too: the call rejects with that 40102, the provider asked twice. */
  async secondRefusal(hooks: Hooks) {
    const { give, asked } = provider('never-issued-1', () => 'never-issued-2');
    const log: (string | number)[] = [];
    const error = await createPlant(
      give,
      { id: hooks.firstId + 30, name: 'Refused' },
      { baseUrl: hooks.baseUrl, middleware: [attempts(log)] },
    ).catch(failure);
    return { error, asked, log };
  },

  /** A provider that throws before the first attempt, one that throws on refresh, one that gives ''. */
  async unusableProvider(hooks: Hooks) {
    const outcome = async (give: TokenProvider) => {
      const log: (string | number)[] = [];
      const error = await createPlant(
        give,
        { id: hooks.firstId + 31, name: 'Never' },
        { baseUrl: hooks.baseUrl, middleware: [attempts(log)] },
      ).catch(failure);
      return { error, log };
    };
    return {
      throwsFirst: await outcome(() => {
        throw new Error('signed out');
      }),
      throwsOnRefresh: await outcome(({ refresh }) =>
        refresh ? Promise.reject(new Error('signed out')) : 'never-issued',
      ),
      empty: await outcome(() => ''),
    };
  },

  /** The caller aborts while its call waits for a refresh that never ends. */
  async abortWhileRefreshing(hooks: Hooks) {
    const controller = new AbortController();
    let refreshing!: () => void;
    const started = new Promise<void>((resolve) => {
      refreshing = resolve;
    });
    const give: TokenProvider = ({ refresh }) => {
      if (!refresh) return 'never-issued';
      refreshing();
      return new Promise<string>(() => {});
    };
    const log: (string | number)[] = [];
    const call = createPlant(
      give,
      { id: hooks.firstId + 32, name: 'Abandoned' },
      { baseUrl: hooks.baseUrl, signal: controller.signal, middleware: [attempts(log)] },
    );
    await started;
    controller.abort(new Error('the person left the page'));
    return { error: await call.catch(failure), log };
  },

  /** A 503 then a 200: the client's middleware and the call's on both attempts, a header of theirs at the server. */
  async middleware(hooks: Hooks) {
    await hooks.failNext(1);
    const log: string[] = [];
    let attempt = 0;
    const client = createPlantStoreClient({
      baseUrl: hooks.baseUrl,
      middleware: [
        {
          onRequest({ request }) {
            log.push(`client onRequest ${++attempt}`);
            const headers = new Headers(request.headers);
            headers.set('x-request-id', `attempt-${attempt}`);
            return new Request(request, { headers });
          },
          onResponse({ response }) {
            // The server echoes the request id it received.
            log.push(`client onResponse ${response.status} ${response.headers.get('x-request-id')}`);
          },
        },
      ],
    });
    const plant = await client.createPlant(
      STEADY_TOKEN,
      { id: hooks.firstId + 33, name: 'Twice' },
      {
        middleware: [
          {
            onRequest: ({ request }) => void log.push(`call onRequest ${request.headers.get('x-request-id')}`),
            onResponse: ({ response }) => void log.push(`call onResponse ${response.status}`),
          },
        ],
      },
    );
    return { plant, log };
  },

  /** @plant-store/msw's 40102 scenario once, then its mock store: the provider refreshes and the create lands. */
  async msw(hooks: Hooks) {
    const baseUrl = 'http://mocked.plant-store.test';
    const mocks = createPlantStoreHandlers({ baseUrl, tokens: ['mock-cached', 'mock-renewed'] });
    const stop = await hooks.mock([mocks.scenarios.unauthorized(40102, { once: true }), ...mocks.handlers]);
    try {
      const { give, asked } = provider('mock-cached', () => 'mock-renewed');
      const log: string[] = [];
      const plant = await createPlant(
        give,
        { id: 1, name: 'Mocked' },
        {
          baseUrl,
          middleware: [
            {
              onRequest: ({ request }) => void log.push(`${request.headers.get('authorization')}`),
              onResponse: ({ response }) => void log.push(`${response.status}`),
            },
          ],
        },
      );
      return { plant, asked, log, stored: await mocks.store.size() };
    } finally {
      stop();
    }
  },
};

export type ScenarioName = keyof typeof scenarios;
