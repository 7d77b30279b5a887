import createClient, {
  type Client,
  type FetchOptions,
  type HeadersOptions,
  type Middleware as OpenapiFetchMiddleware,
  mergeHeaders,
  removeTrailingSlash,
} from 'openapi-fetch';
import { PlantStoreApiError, type PlantStoreError, PlantStoreNetworkError, PlantStoreTimeoutError } from './errors.js';
import type { operations, paths } from './generated/openapi.js';
import { DEFAULT_BASE_URL } from './generated/default-server.js';
import type { ErrorCode } from './generated/error-codes.js';
import { unlessAborted } from './internal/abort.js';
import { liteRequest, type LiteRequest } from './internal/lite-request.js';
import { isPlant, writeNewPlant } from './generated/plant-codec.js';
import { clock, retryDelay } from './internal/retry.js';
import type { Middleware } from './middleware.js';
import { refreshedToken, type TokenProvider, tokenFrom } from './token-provider.js';
import type { NewPlant, Plant } from './types.js';

/** Settings shared by every call of a {@link PlantStoreClient}. */
export interface PlantStoreClientOptions {
  /**
   * Where the service lives, path prefix included (`http://host:4010/api`), handed to fetch as is
   * (so a relative one works in a browser). Default `http://127.0.0.1:4010`.
   */
  baseUrl?: string;
  /** The fetch to call. Default: `globalThis.fetch`, looked up on every call so MSW started later still sees it. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request; the token, the request id and the JSON content type always win. */
  headers?: Record<string, string>;
  /**
   * Milliseconds each attempt may take, answer body included. Default: none, as with fetch (a timeout
   * hands fetch a signal, which Node's fetch pays for on every call); set one where a hung service
   * must not hold a call. `0` (as in axios), a negative count, `NaN`, `Infinity` and anything over 2^31-1
   * (about 24.8 days, more than a timer can hold) mean none.
   */
  timeout?: number;
  /** Extra attempts after a connection failure, a timeout, a 429 or a 5xx. Default 2; 0 turns retries off. */
  retries?: number;
  /**
   * openapi-fetch middleware, run for every attempt (retries and the attempt with a refreshed token
   * included), before a call's own: `onRequest` may return a Request with other headers, `onResponse`
   * sees every answer, `onError` every network failure and timeout. Default: none.
   */
  middleware?: readonly Middleware[];
}

/** Settings of one call; they win over the client's. */
export interface CreatePlantOptions {
  /** Aborts the call, backoff included: it rejects with the signal's reason and is never retried. */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take, answer body included (default: the client's, or none). */
  timeout?: number;
  /** Extra attempts after a connection failure, a timeout, a 429 or a 5xx. */
  retries?: number;
  /** Headers for this call, merged over the client's (names compared without case). */
  headers?: Record<string, string>;
  /**
   * Sent as `X-Request-Id`; the service echoes it and logs it when it is 1 to 128 of
   * `A-Z a-z 0-9 - _ . : /`, and replaces it with its own otherwise.
   */
  requestId?: string;
  /** openapi-fetch middleware for this call, run after the client's on every attempt. */
  middleware?: readonly Middleware[];
}

/** A client holding shared settings; make one per service and reuse it. */
export interface PlantStoreClient {
  /**
   * Creates a plant (the spec's `createPlant` operation, `POST /plants`) and resolves to the stored Plant.
   * `token` is the bearer token, or a {@link TokenProvider} that is asked for one.
   * @example
   * const plant = await client.createPlant(token, { id: 1, name: 'Fern' });
   */
  createPlant(token: string | TokenProvider, newPlant: NewPlant, options?: CreatePlantOptions): Promise<Plant>;
}

type Settings = PlantStoreClientOptions & { baseUrl: string; retries: number };

// No timeout by default, as with fetch (see PlantStoreClientOptions.timeout).
const DEFAULTS: Settings = { baseUrl: DEFAULT_BASE_URL, retries: 2 };

// The spec's paths as this client calls them: the body of POST /plants is the caller's NewPlant, whose
// int64 id may be a bigint (the spec's `NewPlant.id`), written exactly by writeNewPlant. It is optional
// here because only middleware need openapi-fetch to have it: without, the body goes straight into the
// lite request's init (see `send`).
type ClientPaths = {
  '/plants': Omit<paths['/plants'], 'post'> & {
    post: Omit<operations['createPlant'], 'requestBody'> & {
      requestBody?: { content: { 'application/json': NewPlant } };
    };
  };
};

// The options of a create's POST, as built by `send`: `parseAs: 'text'` makes the answer's data a
// string, and `Request` (openapi-fetch's own option, missing from its type) is the global one for middleware.
type PostInit = FetchOptions<ClientPaths['/plants']['post']> & { parseAs: 'text'; Request?: typeof Request };

// One openapi-fetch client for every call: what differs (base URL, fetch, headers) travels in the
// per-call options, so nothing is rebuilt per call. Made on first use: importing does no work.
let openapi: Client<ClientPaths> | undefined;

// The query string of a create: none. Given to createClient, so that openapi-fetch calls this one
// rather than building its default serializer on every call.
const noQuery = () => '';

// The spec's code for a bearer token that is not accepted (ErrorCode.INVALID_TOKEN): the refusal a
// TokenProvider is asked to refresh. A literal, typed by the constant: the ErrorCode object would cost
// the browser bundle its bytes.
const INVALID_TOKEN: typeof ErrorCode.INVALID_TOKEN = 40102;

/**
 * Every attempt's headers. The body's type, the request id and the token are the call's own and come
 * last, so that no header of the caller's replaces them. Without headers from the caller (most calls)
 * they stay a plain object, which fetch reads as cheaply as a hand-written call's (given to
 * openapi-fetch, they would be merged into a Headers twice, which fetch would copy into a third). The
 * caller's are merged by openapi-fetch's mergeHeaders (names without case, null removes one, a Headers
 * from plain JS read as one) into a Headers, which refuses a bad name or value with a TypeError here,
 * before anything is sent; so it does for a token or request id that fetch could not send as it is
 * (NUL, CR, LF, a character past U+00FF).
 */
function headersFor(
  token: string,
  requestId: string | undefined,
  clientHeaders: HeadersOptions | undefined,
  callHeaders: HeadersOptions | undefined,
): Headers | Record<string, string> {
  const own: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  if (requestId !== undefined) own['x-request-id'] = requestId;
  return clientHeaders || callHeaders || /[\0\r\n\u0100-\uffff]/.test(token + requestId)
    ? mergeHeaders(clientHeaders, callHeaders, own)
    : own;
}

async function send(
  s: Settings,
  auth: string | TokenProvider,
  newPlant: NewPlant,
  options: CreatePlantOptions & PlantStoreClientOptions = {},
): Promise<Plant> {
  const provider = typeof auth === 'function' ? auth : undefined;
  if (!provider && (typeof auth !== 'string' || !auth)) {
    throw new TypeError('token must be a non-empty string or a TokenProvider');
  }
  const body = writeNewPlant(newPlant);
  const { signal, requestId, baseUrl = s.baseUrl, fetch = s.fetch, retries = s.retries } = options;
  // `??`, not a destructuring default, so that a null from plain JS means "not set" here too.
  const ms = options.timeout ?? s.timeout ?? 0;
  // The client's middleware, then the call's (an array is made only when both have some); undefined
  // when there are none, which keeps every attempt of the call on the lite request.
  const middleware = options.middleware?.length
    ? s.middleware
      ? [...s.middleware, ...options.middleware]
      : options.middleware
    : s.middleware;
  let token = auth as string;
  if (provider) {
    // An abort that came first asks no provider for a token.
    signal?.throwIfAborted();
    token = await unlessAborted(tokenFrom(provider, false), signal);
  }
  let headers = headersFor(token, requestId, s.headers, options.headers);
  // Without a provider there is nothing to refresh: a refused token ends the call like any 401.
  let refreshed = !provider;
  openapi ??= createClient<ClientPaths>({
    // The one cast (undone where fetch receives what it made): openapi-fetch types this option as the
    // global Request, and only calls it with `new`.
    Request: liteRequest as unknown as typeof Request,
    querySerializer: noQuery,
  });

  for (let retry = 0; ; retry++) {
    signal?.throwIfAborted();
    // No signal for fetch when nothing could abort the call: undici pays for following one on every request.
    // 0 means no timeout (as in axios), and so do a negative count and NaN, which a timer would fire at
    // once, and Infinity and counts over 2^31-1 ms, which Node and browsers wrap to 1 ms and 0.
    const timed = ms > 0 && ms < 2 ** 31;
    const controller = signal || timed ? new AbortController() : undefined;
    const abort = () => controller!.abort(signal!.reason);
    signal?.addEventListener('abort', abort);
    const timer = timed ? setTimeout(() => controller!.abort(), ms) : undefined;
    // `METHOD URL` for messages, set when fetch is reached: only what fetch throws is the network's.
    let what = '';
    let failure!: PlantStoreError;
    let retryAfter: string | null = null;
    // biome-ignore lint/suspicious/noImplicitAnyLet: typed by the POST call it is assigned from, inside the try
    let answer;
    try {
      // Without middleware, openapi-fetch is given no body and no headers (it would merge them into a
      // Headers for a serializer, then again with its content type) and builds the lite request, whose
      // init gets this call's body and headers below. With middleware, it builds a real Request with
      // both, for them to read or replace. No option is passed as undefined: openapi-fetch copies every
      // key of the options, twice, on every call.
      const init: PostInit = {
        baseUrl,
        parseAs: 'text',
        // What arrives is what the Request option made, or a middleware's Request. (openapi-fetch types
        // it as the global Request, which the option's cast stands for.)
        fetch: (request: Request) => {
          if (!Array.isArray(request)) {
            what = `POST ${request.url}`;
            return (fetch ?? globalThis.fetch)(request);
          }
          const [url, liteInit] = request as unknown as LiteRequest;
          what = `POST ${url}`;
          liteInit.body = body;
          liteInit.headers = headers;
          return (fetch ?? globalThis.fetch)(url, liteInit);
        },
      };
      if (controller) init.signal = controller.signal;
      if (middleware) {
        init.body = newPlant;
        // Written once, before the first attempt: every retry sends the same bytes.
        init.bodySerializer = () => body;
        init.headers = headers;
        init.middleware = middleware as OpenapiFetchMiddleware[];
        init.Request = Request;
      }
      answer = await openapi.POST('/plants', init);
    } catch (cause) {
      if (!what) throw cause;
      if (signal?.aborted) throw signal.reason;
      // Not the caller's abort, so an abort can only be the timer's.
      failure = controller?.signal.aborted
        ? new PlantStoreTimeoutError(what, ms)
        : new PlantStoreNetworkError(what, cause);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    }
    if (answer) {
      const { data, error, response } = answer;
      // No fetch when a middleware's onRequest answered in its place: the messages name the URL that
      // openapi-fetch built, as for a sent request.
      what ||= `POST ${baseUrl ? removeTrailingSlash(baseUrl) : ''}/plants`;
      if (response.ok) {
        const plant = parsePlant(data);
        if (plant) return plant;
        throw new PlantStoreApiError(what, response, undefined, 'no Plant in the answer');
      }
      failure = new PlantStoreApiError(
        what,
        response,
        error,
        `no Error body in the answer (${response.headers.get('content-type')})`,
      );
      // The token refused: the provider is asked for a new one, once per call, and the same create is
      // sent again with it (a replay, so safe). That attempt is not one of the retries.
      if (!refreshed && (failure as PlantStoreApiError).code === INVALID_TOKEN) {
        refreshed = true;
        token = await unlessAborted(refreshedToken(provider!, token), signal);
        headers = headersFor(token, requestId, s.headers, options.headers);
        retry--;
        continue;
      }
      // Rate limited or a server fault: worth another go, and safe, since the same create is a replay.
      if (response.status !== 429 && response.status < 500) throw failure;
      retryAfter = response.headers.get('retry-after');
    }
    // Written as "not below" so a NaN count means no retry rather than endless ones.
    if (!(retry < retries)) throw failure;
    await clock.sleep(retryDelay(retry, retryAfter), signal);
  }
}

function parsePlant(text: string | undefined): Plant | undefined {
  try {
    const plant: unknown = JSON.parse(text!);
    // Each answered field present when required and of its type: a null in an optional field is not a spec `Plant`.
    if (isPlant(plant)) return plant;
  } catch {
    // Not JSON (or null): the caller gets an API error naming the problem, not a SyntaxError.
  }
  return undefined;
}

/**
 * Makes a client that holds shared settings (base URL, fetch, headers, timeout, retries, middleware).
 * @example
 * const client = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:4010' });
 * const plant = await client.createPlant(token, { id: 9007199254740993n, name: 'Fern', tag: 'shade' });
 */
export function createPlantStoreClient(options?: PlantStoreClientOptions): PlantStoreClient {
  // Option by option, so `{ baseUrl: process.env.PLANT_STORE_URL }` with the variable unset keeps the default.
  const s: Settings = {
    ...options,
    baseUrl: options?.baseUrl ?? DEFAULTS.baseUrl,
    retries: options?.retries ?? DEFAULTS.retries,
    // None when the list is empty, so that a call of this client with none costs what it would without.
    middleware: options?.middleware?.length ? options.middleware : undefined,
  };
  return { createPlant: (token, newPlant, callOptions) => send(s, token, newPlant, callOptions) };
}

/**
 * Creates a plant (the spec's `createPlant` operation, `POST /plants`) and resolves to the stored
 * Plant. Safe to retry: the service answers the same create again as a replay. `token` is the bearer
 * token, or a {@link TokenProvider} that is asked for one (and for a new one when the service refuses it).
 * @example
 * const plant = await createPlant(token, { id: 1, name: 'Fern' }, { baseUrl: 'http://127.0.0.1:4010' });
 */
export function createPlant(
  token: string | TokenProvider,
  newPlant: NewPlant,
  options?: CreatePlantOptions & PlantStoreClientOptions,
): Promise<Plant> {
  return send(DEFAULTS, token, newPlant, options);
}
