import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/index.js';
import { createRequest, makeApp, read } from './helpers.js';

const RANGE = 'id must be an integer between -9223372036854775808 and 9223372036854775807';

/** Raw id texts JSON.parse would round, and the exact int64 each must be stored as. */
const ACCEPTED: [string, bigint][] = [
  ['9007199254740993', 9007199254740993n], // 2^53+1: JSON.parse says 9007199254740992
  ['-9007199254740993', -9007199254740993n],
  ['-9223372036854775808', -(2n ** 63n)],
  ['9223372036854775807', 2n ** 63n - 1n],
  ['1e2', 100n],
  ['1E+2', 100n],
  ['1.0', 1n],
  ['-0', 0n],
  ['0', 0n],
  ['0.0e5', 0n],
  ['-0.0', 0n],
  ['12.50e1', 125n],
  ['922337203685477580.7e1', 2n ** 63n - 1n],
  ['9.223372036854775807e18', 2n ** 63n - 1n],
  ['-9.223372036854775808E18', -(2n ** 63n)],
  ['1000e-3', 1n],
  ['1500e-2', 15n],
  ['0.0000000000000000000000000e99999999999', 0n],
];

const REJECTED = [
  '9223372036854775808', // 2^63
  '-9223372036854775809', // -2^63-1
  '1.00000000000000000001', // JSON.parse says 1
  '9223372036854775807.5',
  '1e19',
  '1e-1',
  '15e-1',
  '1e99999999999999999999',
  '1e-99999999999999999999',
  '100000000000000000000000000000000000000000000',
  '1e400', // JSON.parse says Infinity
  '0.1',
];

describe('exact int64 ids', () => {
  it.each(ACCEPTED.map(([text, id]) => [text, id] as const))('stores id %s exactly as %s', async (text, id) => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest(`{"id":${text},"name":"n"}`)));
    expect(res.status).toBe(200);
    expect(await app.store.list()).toEqual([{ id, name: 'n' }]);
  });

  it.each(REJECTED)('refuses id %s with 40002', async (text) => {
    const app = makeApp();
    const res = await read(await app.fetch(createRequest(`{"id":${text},"name":"n"}`)));
    expect(res.json).toEqual({ error: ErrorCode.INVALID_PLANT, message: RANGE });
    expect(await app.store.size()).toBe(0);
  });

  it('tells 2^53 and 2^53+1 apart as two plants', async () => {
    const app = makeApp();
    await app.fetch(createRequest('{"id":9007199254740992,"name":"a"}'));
    const res = await app.fetch(createRequest('{"id":9007199254740993,"name":"b"}'));
    expect(res.status).toBe(200);
    expect((await app.store.list()).map((p) => p.id)).toEqual([9007199254740992n, 9007199254740993n]);
  });

  it('treats 1e2 and 100 as the same id (a replay, not a new plant)', async () => {
    const app = makeApp();
    await app.fetch(createRequest('{"id":100,"name":"a"}'));
    expect((await app.fetch(createRequest('{"id":1e2,"name":"a"}'))).status).toBe(200);
    expect((await read(await app.fetch(createRequest('{"id":1.00e2,"name":"b"}')))).json.error).toBe(
      ErrorCode.ID_CONFLICT,
    );
    expect(await app.store.size()).toBe(1);
  });

  it('reads the last of duplicate id members, as JSON.parse does', async () => {
    const app = makeApp();
    await app.fetch(createRequest('{"id":1,"name":"a","id":9007199254740993}'));
    expect((await app.store.list())[0]!.id).toBe(9007199254740993n);
    const res = await read(await app.fetch(createRequest('{"id":9007199254740995,"name":"a","id":"x"}')));
    expect(res.json.message).toBe(RANGE);
  });

  it('finds an id written with escapes in its key, and ignores ids nested deeper or inside strings', async () => {
    const app = makeApp();
    const body =
      '{"meta":{"id":1,"list":[{"id":2}]},"note":"\\"id\\":3, {\\"id\\":4}","\\u0069d":9007199254740997,"name":"a","x":[1,"]",{"}":2}]}';
    const res = await app.fetch(createRequest(body));
    expect(res.status).toBe(200);
    expect((await app.store.list())[0]!.id).toBe(9007199254740997n);
  });

  it('refuses an id hidden under a nested object or __proto__', async () => {
    const app = makeApp();
    for (const body of ['{"meta":{"id":1},"name":"a"}', '{"__proto__":{"id":1},"name":"a"}']) {
      expect((await read(await app.fetch(createRequest(body)))).json.message).toBe('id is required');
    }
  });

  it('handles whitespace around members and values', async () => {
    const app = makeApp();
    const res = await app.fetch(createRequest(' \n{ \t"name" : "a" ,\r\n "id"\n:\n-9223372036854775808 \n} \n'));
    expect(res.status).toBe(200);
    expect((await app.store.list())[0]!.id).toBe(-(2n ** 63n));
  });
});
