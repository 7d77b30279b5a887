import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import {
  PlantStoreApiError,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
  createPlant,
  createPlantStoreClient,
} from '../src/index.js';
import { clock, retryDelay } from '../src/internal/retry.js';
import { errorAnswer, fakeFetch, hangingFetch, json } from './fake-fetch.js';

const token = 'secret-token';
const fern = { id: 1, name: 'Fern' };
const down = () => new TypeError('fetch failed');
let pauses: number[];

beforeEach(() => {
  pauses = [];
  // Backoff is recorded, not waited for.
  vi.spyOn(clock, 'sleep').mockImplementation(async (ms) => {
    pauses.push(ms);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

it('retries a connection failure twice by default, then gives the network error', async () => {
  const { fetch } = fakeFetch(down());

  const error = await createPlant(token, fern, { fetch }).catch((e: unknown) => e);

  expect(PlantStoreNetworkError.is(error)).toBe(true);
  expect(fetch).toHaveBeenCalledTimes(3);
  expect(pauses).toHaveLength(2);
});

it('resolves when a retry succeeds, sending the very same body each time', async () => {
  const { fetch, sent } = fakeFetch(down(), errorAnswer(503, 50001), json(200, { name: 'Fern' }));

  await expect(createPlant(token, { id: 2n ** 60n, name: 'Fern' }, { fetch })).resolves.toEqual({ name: 'Fern' });

  expect(sent.map((r) => r.body)).toEqual(Array(3).fill('{"id":1152921504606846976,"name":"Fern"}'));
});

it('retries 5xx answers and gives the last one as a PlantStoreApiError', async () => {
  const { fetch } = fakeFetch(errorAnswer(500, 50001), errorAnswer(502, 50001), errorAnswer(503, 50001, 'busy'));

  const error = (await createPlant(token, fern, { fetch }).catch((e: unknown) => e)) as PlantStoreApiError;

  expect(error.status).toBe(503);
  expect(error.message).toMatch(/failed with 503: busy$/);
  expect(fetch).toHaveBeenCalledTimes(3);
});

it('honours Retry-After in seconds on a 429', async () => {
  const { fetch } = fakeFetch(
    errorAnswer(429, 42901, 'slow down', { 'retry-after': '3' }),
    json(200, { name: 'Fern' }),
  );

  await createPlant(token, fern, { fetch });

  expect(pauses).toEqual([3000]);
});

it('honours Retry-After as an HTTP date, and caps it at a minute', async () => {
  const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
  const { fetch } = fakeFetch(
    errorAnswer(503, 50001, 'busy', { 'retry-after': inTenSeconds }),
    errorAnswer(429, 42901, 'later', { 'retry-after': '3600' }),
    json(200, { name: 'Fern' }),
  );

  await createPlant(token, fern, { fetch });

  expect(pauses[0]).toBeGreaterThan(8_000);
  expect(pauses[0]).toBeLessThanOrEqual(10_000);
  expect(pauses[1]).toBe(60_000);
});

it('backs off exponentially with full jitter when there is no Retry-After', () => {
  vi.spyOn(clock, 'random').mockReturnValue(0.999999);
  const highest = [0, 1, 2, 3, 4, 5, 6].map((retry) => Math.round(retryDelay(retry, null)));
  vi.spyOn(clock, 'random').mockReturnValue(0);
  const lowest = [0, 1, 2, 3].map((retry) => retryDelay(retry, null));

  expect(highest).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  expect(lowest).toEqual([0, 0, 0, 0]);
  expect(retryDelay(0, 'not a date')).toBe(0);
  expect(retryDelay(0, new Date(Date.now() - 60_000).toUTCString())).toBe(0);
});

it.each([400, 401, 404, 409, 413])('never retries a %i answer', async (status) => {
  const { fetch } = fakeFetch(errorAnswer(status, 40002));

  await expect(createPlant(token, fern, { fetch })).rejects.toSatisfy(PlantStoreApiError.is);

  expect(fetch).toHaveBeenCalledTimes(1);
  expect(pauses).toEqual([]);
});

it('makes exactly one attempt with retries 0, per call or per client', async () => {
  const { fetch } = fakeFetch(errorAnswer(503, 50001));
  const client = createPlantStoreClient({ fetch, retries: 0 });

  await expect(createPlant(token, fern, { fetch, retries: 0 })).rejects.toSatisfy(PlantStoreApiError.is);
  await expect(client.createPlant(token, fern)).rejects.toSatisfy(PlantStoreApiError.is);

  expect(fetch).toHaveBeenCalledTimes(2);
});

it('lets a call raise the client retry count', async () => {
  const { fetch } = fakeFetch(down());
  const client = createPlantStoreClient({ fetch, retries: 0 });

  await expect(client.createPlant(token, fern, { retries: 4 })).rejects.toSatisfy(PlantStoreNetworkError.is);

  expect(fetch).toHaveBeenCalledTimes(5);
});

it('gives a PlantStoreTimeoutError when no answer comes within the timeout', async () => {
  const { fetch } = hangingFetch();

  const error = await createPlant(token, fern, { fetch, timeout: 20, retries: 0 }).catch((e: unknown) => e);

  expect(PlantStoreTimeoutError.is(error)).toBe(true);
  expect((error as PlantStoreTimeoutError).timeout).toBe(20);
  expect((error as PlantStoreTimeoutError).name).toBe('PlantStoreTimeoutError');
  expect((error as Error).message).toBe('POST http://127.0.0.1:4010/plants timed out after 20 ms');
});

it('hands fetch a signal only when something can abort the call (a timeout or a caller signal)', async () => {
  const signals: (AbortSignal | null | undefined)[] = [];
  const { fetch } = fakeFetch(async (init) => {
    signals.push(init.signal);
    return json(200, { name: 'Fern' });
  });

  await createPlant(token, fern, { fetch, timeout: Number.POSITIVE_INFINITY });
  // The default is no timeout, as with fetch.
  await createPlant(token, fern, { fetch });
  await createPlantStoreClient({ fetch }).createPlant(token, fern);
  await createPlant(token, fern, { fetch, timeout: 30_000 });
  await createPlantStoreClient({ fetch, timeout: 30_000 }).createPlant(token, fern);
  await createPlant(token, fern, { fetch, signal: new AbortController().signal });

  // Without either there is nothing to abort, and undici pays for following a signal on every request.
  expect(signals.map((signal) => signal instanceof AbortSignal)).toEqual([false, false, false, true, true, true]);
  expect(signals.slice(0, 3)).toEqual([undefined, undefined, undefined]);
});

// Regression: a timeout over 2^31-1 ms went to setTimeout, which wraps it to 1 ms, so every
// attempt timed out at once.
it('takes a timeout over 2^31-1 ms (more than a timer can hold) as none', async () => {
  const signals: (AbortSignal | null | undefined)[] = [];
  const { fetch } = fakeFetch(async (init) => {
    signals.push(init.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    return json(200, { name: 'Fern' });
  });

  await expect(createPlant(token, fern, { fetch, timeout: 2 ** 31, retries: 0 })).resolves.toEqual({ name: 'Fern' });
  await expect(createPlant(token, fern, { fetch, timeout: 2 ** 31 - 1, retries: 0 })).resolves.toEqual({
    name: 'Fern',
  });

  expect(signals[0]).toBeUndefined();
  expect(signals[1]).toBeInstanceOf(AbortSignal);
});

// Regression: a null from plain JS set a 0 ms timer (null < 2^31), and 0 or a negative count timed
// every attempt out at once; NaN meant none. Now all of them mean no timeout, as 0 does in axios.
it.each([
  ['0', 0],
  ['a negative count', -5],
  ['NaN', Number.NaN],
  ['null', null],
])('takes a timeout of %s as none, for the client and for a call', async (_, timeout) => {
  const signals: (AbortSignal | null | undefined)[] = [];
  const { fetch } = fakeFetch(async (init) => {
    signals.push(init.signal);
    await new Promise((resolve) => setTimeout(resolve, 30));
    return json(200, { name: 'Fern' });
  });
  const t = timeout as number;

  await expect(createPlantStoreClient({ fetch, timeout: t, retries: 0 }).createPlant(token, fern)).resolves.toEqual({
    name: 'Fern',
  });
  await expect(createPlant(token, fern, { fetch, timeout: t, retries: 0 })).resolves.toEqual({ name: 'Fern' });

  expect(signals).toEqual([undefined, undefined]);
});

it('lets a call null its timeout to fall back to the client one, and 0 turn it off', async () => {
  const { fetch } = hangingFetch();
  const client = createPlantStoreClient({ fetch, timeout: 10, retries: 0 });

  const error = await client.createPlant(token, fern, { timeout: null as unknown as number }).catch((e: unknown) => e);
  expect(PlantStoreTimeoutError.is(error) && error.timeout).toBe(10);

  const slow = fakeFetch(async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return json(200, { name: 'Fern' });
  });
  const off = createPlantStoreClient({ fetch: slow.fetch, timeout: 10, retries: 0 });
  await expect(off.createPlant(token, fern, { timeout: 0 })).resolves.toEqual({ name: 'Fern' });
});

it('retries a timed-out attempt like a lost connection, with the client timeout', async () => {
  const { fetch } = hangingFetch();
  const client = createPlantStoreClient({ fetch, timeout: 10, retries: 1 });

  await expect(client.createPlant(token, fern)).rejects.toSatisfy(PlantStoreTimeoutError.is);

  expect(fetch).toHaveBeenCalledTimes(2);
});

it('rejects with the signal reason and sends nothing when the signal is already aborted', async () => {
  const { fetch } = fakeFetch(json(200, { name: 'Fern' }));
  const controller = new AbortController();
  controller.abort();

  const error = await createPlant(token, fern, { fetch, signal: controller.signal }).catch((e: unknown) => e);

  expect(error).toBe(controller.signal.reason);
  expect((error as DOMException).name).toBe('AbortError');
  expect(fetch).not.toHaveBeenCalled();
});

it('rejects with the signal reason when aborted while waiting for the answer, and does not retry', async () => {
  const { fetch } = hangingFetch();
  const controller = new AbortController();
  vi.mocked(fetch).mockImplementationOnce(async (_url, init) => {
    controller.abort();
    throw init!.signal!.reason;
  });

  const error = await createPlant(token, fern, { fetch, signal: controller.signal }).catch((e: unknown) => e);

  expect(error).toBe(controller.signal.reason);
  expect((error as DOMException).name).toBe('AbortError');
  expect(fetch).toHaveBeenCalledTimes(1);
  expect(pauses).toEqual([]);
});

it('passes a caller abort on to the fetch in flight', async () => {
  const { fetch } = hangingFetch();
  const controller = new AbortController();
  const reason = new Error('user left the page');

  const call = createPlant(token, fern, { fetch, signal: controller.signal, timeout: Number.POSITIVE_INFINITY });
  await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
  controller.abort(reason);

  await expect(call).rejects.toBe(reason);
  expect(fetch).toHaveBeenCalledTimes(1);
});

it('does not start a backoff when the caller aborted while a retryable answer was coming in', async () => {
  vi.mocked(clock.sleep).mockRestore();
  const { fetch } = fakeFetch(errorAnswer(503, 50001, 'busy', { 'retry-after': '60' }));
  const controller = new AbortController();

  // The fake fetch is called synchronously and answers without looking at the signal.
  const call = createPlant(token, fern, { fetch, signal: controller.signal });
  controller.abort();

  await expect(call).rejects.toBe(controller.signal.reason);
  expect(fetch).toHaveBeenCalledTimes(1);
});

it('stops waiting to retry as soon as the caller aborts during the backoff', async () => {
  vi.mocked(clock.sleep).mockRestore();
  const sleep = vi.spyOn(clock, 'sleep');
  const { fetch } = fakeFetch(errorAnswer(503, 50001, 'busy', { 'retry-after': '60' }));
  const controller = new AbortController();

  const call = createPlant(token, fern, { fetch, signal: controller.signal });
  await vi.waitFor(() => expect(sleep).toHaveBeenCalledWith(60_000, controller.signal));
  controller.abort();

  await expect(call).rejects.toBe(controller.signal.reason);
  expect(fetch).toHaveBeenCalledTimes(1);
});
