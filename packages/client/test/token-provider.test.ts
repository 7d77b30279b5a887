// A token provider in place of a token: asked before the first attempt, asked once more after the
// service refused its token (40102), the refresh shared by the calls refused with the same token,
// its failures and the caller's abort. The wire is a fake fetch that accepts one token.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ErrorCode,
  PlantStoreApiError,
  PlantStoreError,
  type TokenProvider,
  createPlant,
  createPlantStoreClient,
} from '../src/index.js';
import { clock } from '../src/internal/retry.js';
import { errorAnswer, fakeFetch, json } from './fake-fetch.js';

const fern = { id: 1, name: 'Fern' };

beforeEach(() => {
  // Backoff is not waited for.
  vi.spyOn(clock, 'sleep').mockResolvedValue();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A service that accepts `accepted` and answers 40102 to any other token; what each attempt sent. */
function service(accepted: string) {
  return fakeFetch(async (init) => {
    const token = new Headers(init.headers).get('authorization');
    return token === `Bearer ${accepted}` ? json(200, { name: 'Fern' }) : errorAnswer(401, ErrorCode.INVALID_TOKEN);
  });
}

/** A provider that gives `cached` until asked to refresh, then `fresh`; `calls` lists its `refresh` values. */
function provider(cached: string, fresh: string) {
  const calls: boolean[] = [];
  const give = vi.fn<TokenProvider>(async ({ refresh }) => {
    calls.push(refresh);
    return refresh ? fresh : cached;
  });
  return { give, calls };
}

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const tokensSent = (sent: { headers: Headers }[]) => sent.map((request) => request.headers.get('authorization'));

describe('a token provider', () => {
  it('is asked with refresh: false before the first attempt, and no more when its token is accepted', async () => {
    const { fetch, sent } = service('current');
    const { give, calls } = provider('current', 'unused');

    await expect(createPlant(give, fern, { fetch })).resolves.toEqual({ name: 'Fern' });

    expect(calls).toEqual([false]);
    expect(tokensSent(sent)).toEqual(['Bearer current']);
  });

  it('takes a token given synchronously as well as a promise of one', async () => {
    const { fetch, sent } = service('sync-token');

    await createPlant(() => 'sync-token', fern, { fetch });

    expect(tokensSent(sent)).toEqual(['Bearer sync-token']);
  });

  it('is asked once with refresh: true after a 40102, and the same create is sent again with the new token', async () => {
    const { fetch, sent } = service('renewed');
    const { give, calls } = provider('expired', 'renewed');

    await expect(createPlant(give, { id: 2n ** 60n, name: 'Fern' }, { fetch })).resolves.toEqual({ name: 'Fern' });

    expect(calls).toEqual([false, true]);
    expect(tokensSent(sent)).toEqual(['Bearer expired', 'Bearer renewed']);
    expect(sent.map((request) => request.body)).toEqual(Array(2).fill('{"id":1152921504606846976,"name":"Fern"}'));
    // The refreshed attempt follows the refusal at once: it is not a retry after a backoff.
    expect(clock.sleep).not.toHaveBeenCalled();
  });

  it('rejects with the second 40102 as a PlantStoreApiError, and is not asked a third time', async () => {
    const { fetch, sent } = service('nobody-has-this');
    const { give, calls } = provider('expired', 'refused-too');

    const error = await createPlant(give, fern, { fetch }).catch((e: unknown) => e);

    expect(PlantStoreApiError.is(error) && [error.status, error.code]).toEqual([401, ErrorCode.INVALID_TOKEN]);
    expect(calls).toEqual([false, true]);
    expect(tokensSent(sent)).toEqual(['Bearer expired', 'Bearer refused-too']);
  });

  it('does not refresh on a 40101 (no credentials): the call rejects after one attempt', async () => {
    const { fetch } = fakeFetch(errorAnswer(401, ErrorCode.MISSING_CREDENTIALS));
    const { give, calls } = provider('token', 'unused');

    const error = await createPlant(give, fern, { fetch }).catch((e: unknown) => e);

    expect(PlantStoreApiError.is(error) && error.code).toBe(ErrorCode.MISSING_CREDENTIALS);
    expect(calls).toEqual([false]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('sends the refreshed attempt with retries 0: it is not one of the retries', async () => {
    const { fetch, sent } = fakeFetch(
      errorAnswer(401, ErrorCode.INVALID_TOKEN),
      errorAnswer(503, ErrorCode.STORE_UNAVAILABLE),
      json(200, { name: 'Fern' }),
    );

    const error = await createPlant(provider('old', 'new').give, fern, { fetch, retries: 0 }).catch((e: unknown) => e);

    expect(PlantStoreApiError.is(error) && error.status).toBe(503);
    expect(tokensSent(sent)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('retries after a 503 with the new token when the refusal came on a retry', async () => {
    const { fetch, sent } = fakeFetch(
      errorAnswer(503, ErrorCode.STORE_UNAVAILABLE),
      errorAnswer(401, ErrorCode.INVALID_TOKEN),
      errorAnswer(503, ErrorCode.STORE_UNAVAILABLE),
      json(200, { name: 'Fern' }),
    );

    await expect(createPlant(provider('old', 'new').give, fern, { fetch, retries: 2 })).resolves.toEqual({
      name: 'Fern',
    });

    expect(tokensSent(sent)).toEqual(['Bearer old', 'Bearer old', 'Bearer new', 'Bearer new']);
  });

  it('works for a client call, with the client headers kept on the refreshed attempt', async () => {
    const { fetch, sent } = service('renewed');
    const client = createPlantStoreClient({ fetch, headers: { 'x-app': 'shop' } });

    await client.createPlant(provider('expired', 'renewed').give, fern, { requestId: 'order-1' });

    expect(sent.map((request) => [...request.headers])).toEqual(
      ['expired', 'renewed'].map((token) => [
        ['authorization', `Bearer ${token}`],
        ['content-type', 'application/json'],
        ['x-app', 'shop'],
        ['x-request-id', 'order-1'],
      ]),
    );
  });

  it('leaves a plain string token as it was: a 40102 rejects after one attempt', async () => {
    const { fetch } = service('another');

    const error = await createPlant('expired', fern, { fetch }).catch((e: unknown) => e);

    expect(PlantStoreApiError.is(error) && error.code).toBe(ErrorCode.INVALID_TOKEN);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('one refresh for the calls refused with the same token', () => {
  it('asks the provider once for 20 concurrent calls refused together, and retries each with its answer', async () => {
    const { fetch, sent } = service('renewed');
    const refresh = deferred<string>();
    const calls: boolean[] = [];
    const give: TokenProvider = ({ refresh: asked }) => {
      calls.push(asked);
      return asked ? refresh.promise : 'expired';
    };

    const creates = Array.from({ length: 20 }, (_, i) => createPlant(give, { id: i, name: 'Fern' }, { fetch }));
    await vi.waitFor(() => expect(sent).toHaveLength(20));
    // Every call waits for the one refresh in flight.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls.filter(Boolean)).toHaveLength(1);
    refresh.resolve('renewed');

    await expect(Promise.all(creates)).resolves.toHaveLength(20);
    expect(calls.filter((asked) => !asked)).toHaveLength(20);
    expect(calls.filter(Boolean)).toHaveLength(1);
    expect(tokensSent(sent.slice(20))).toEqual(Array(20).fill('Bearer renewed'));
  });

  it('gives a call refused with that token after the refresh ended the same new token, without asking', async () => {
    const { fetch, sent } = service('renewed');
    const { give, calls } = provider('expired', 'renewed');

    await createPlant(give, fern, { fetch });
    await createPlant(give, fern, { fetch });

    expect(calls).toEqual([false, true, false]);
    expect(tokensSent(sent)).toEqual(['Bearer expired', 'Bearer renewed', 'Bearer expired', 'Bearer renewed']);
  });

  it('asks again when the new token is refused in turn (another refused token)', async () => {
    let accepted = 'second';
    const { fetch, sent } = fakeFetch(async (init) =>
      new Headers(init.headers).get('authorization') === `Bearer ${accepted}`
        ? json(200, { name: 'Fern' })
        : errorAnswer(401, ErrorCode.INVALID_TOKEN),
    );
    const tokens = ['first', 'second', 'third'];
    let current = 0;
    const give: TokenProvider = ({ refresh }) => tokens[refresh ? ++current : current]!;

    await createPlant(give, fern, { fetch });
    accepted = 'third';
    await createPlant(give, fern, { fetch });

    expect(tokensSent(sent)).toEqual(['Bearer first', 'Bearer second', 'Bearer second', 'Bearer third']);
  });

  it('keeps the refreshes of two providers apart', async () => {
    const { fetch } = service('renewed');
    const one = provider('expired', 'renewed');
    const two = provider('expired', 'renewed');

    await Promise.all([createPlant(one.give, fern, { fetch }), createPlant(two.give, fern, { fetch })]);

    expect([one.calls, two.calls]).toEqual([
      [false, true],
      [false, true],
    ]);
  });

  it('rejects every call waiting on a refresh that failed with its error, and asks again at the next refusal', async () => {
    const { fetch } = service('renewed');
    const outage = new Error('the identity provider is down');
    const give = vi.fn<TokenProvider>(({ refresh }) => {
      if (!refresh) return 'expired';
      if (give.mock.calls.filter(([request]) => request.refresh).length === 1) throw outage;
      return 'renewed';
    });

    const failed = await Promise.all(
      [1, 2, 3].map((id) => createPlant(give, { id, name: 'Fern' }, { fetch }).catch((e: unknown) => e)),
    );
    expect(failed).toEqual([outage, outage, outage]);

    await expect(createPlant(give, fern, { fetch })).resolves.toEqual({ name: 'Fern' });
    expect(give.mock.calls.filter(([request]) => request.refresh)).toHaveLength(2);
  });
});

describe('a provider that gives no usable token', () => {
  it('rejects the call with what it throws, as it is, and sends nothing', async () => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
    const signedOut = new Error('signed out');

    await expect(
      createPlant(
        () => {
          throw signedOut;
        },
        fern,
        { fetch },
      ),
    ).rejects.toBe(signedOut);
    await expect(createPlant(() => Promise.reject(signedOut), fern, { fetch })).rejects.toBe(signedOut);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('rejects with what it throws on refresh, after the one refused attempt', async () => {
    const { fetch } = service('renewed');
    const signedOut = new Error('signed out');

    const error = await createPlant(({ refresh }) => (refresh ? Promise.reject(signedOut) : 'expired'), fern, {
      fetch,
    }).catch((e: unknown) => e);

    expect(error).toBe(signedOut);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['an empty string', ''],
    ['a token with a space', 'two words'],
    ['a token with a line break', 'abc\r\nX-Evil: 1'],
    ['a token past ASCII', 'caf\u00e9'],
    ['padding in the middle', 'ab=cd'],
    ['a number', 42],
    ['undefined', undefined],
    ['null', null],
  ])('rejects %s with a TypeError that does not show it, and sends nothing', async (_, token) => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));

    const error = await createPlant(() => token as string, fern, { fetch }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect(PlantStoreError.is(error)).toBe(false);
    expect((error as TypeError).message).toBe('the token provider gave no token68 string');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('rejects an unusable refreshed token with the TypeError, after the one refused attempt', async () => {
    const { fetch } = service('renewed');

    const error = await createPlant(({ refresh }) => (refresh ? '' : 'expired'), fern, { fetch }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('sends every token68 character, padding included', async () => {
    const { fetch, sent } = fakeFetch(json(200, { name: 'Fern' }));
    const token = 'AZaz09-._~+/==';

    await createPlant(() => token, fern, { fetch });

    expect(tokensSent(sent)).toEqual([`Bearer ${token}`]);
  });
});

describe('the abort signal', () => {
  it('aborts a call waiting for its first token, and sends nothing', async () => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
    const controller = new AbortController();
    const reason = new Error('user left the page');

    const call = createPlant(() => new Promise<string>(() => {}), fern, { fetch, signal: controller.signal });
    controller.abort(reason);

    await expect(call).rejects.toBe(reason);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('aborts a call waiting on a refresh, which goes on for the other calls that share it', async () => {
    const { fetch, sent } = service('renewed');
    const refresh = deferred<string>();
    const give: TokenProvider = ({ refresh: asked }) => (asked ? refresh.promise : 'expired');
    const controller = new AbortController();

    const aborted = createPlant(give, { id: 1, name: 'Fern' }, { fetch, signal: controller.signal });
    const other = createPlant(give, { id: 2, name: 'Fern' }, { fetch });
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    controller.abort();

    await expect(aborted).rejects.toBe(controller.signal.reason);
    refresh.resolve('renewed');
    await expect(other).resolves.toEqual({ name: 'Fern' });
    // The two refused attempts, and the other call's attempt with the new token.
    expect(tokensSent(sent)).toEqual(['Bearer expired', 'Bearer expired', 'Bearer renewed']);
  });

  it('rejects before asking the provider when it was aborted already', async () => {
    const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
    const give = vi.fn<TokenProvider>(() => 'token');

    await expect(createPlant(give, fern, { fetch, signal: AbortSignal.abort() })).rejects.toSatisfy(
      (e: unknown) => (e as DOMException).name === 'AbortError',
    );
    expect(fetch).not.toHaveBeenCalled();
  });
});
