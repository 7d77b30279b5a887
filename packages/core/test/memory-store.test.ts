import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/index.js';
import { anyPlant, fullPlant, plantOf } from '../src/internal/conformance-values.js';

describe('createMemoryStore', () => {
  it('inserts a new plant and reports it created', async () => {
    const store = createMemoryStore();
    expect(await store.insert({ id: 1n, name: 'Fern', tag: 'x' })).toEqual({ created: true });
    expect(await store.get(1n)).toEqual({ id: 1n, name: 'Fern', tag: 'x' });
    expect(await store.size()).toBe(1);
  });

  it('never overwrites: a taken id reports the existing plant and keeps it', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 1n, name: 'Fern' });
    expect(await store.insert({ id: 1n, name: 'Ivy', tag: 't' })).toEqual({
      created: false,
      existing: { id: 1n, name: 'Fern' },
    });
    expect(await store.get(1n)).toEqual({ id: 1n, name: 'Fern' });
  });

  it('keeps ids on both sides of 2^53 and the int64 extremes apart and exact', async () => {
    const store = createMemoryStore();
    const ids = [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, -(2n ** 63n), 2n ** 63n - 1n, 0n, -1n];
    for (const id of ids) expect(await store.insert({ id, name: String(id) })).toEqual({ created: true });
    expect((await store.list()).map((p) => p.id)).toEqual(ids);
    for (const id of ids) expect(await store.get(id)).toEqual({ id, name: String(id) });
    expect(await store.get(2n ** 53n + 2n)).toBeUndefined();
  });

  it('keeps ids that differ only in their high or their low 32 bits apart', async () => {
    const store = createMemoryStore();
    // Same low half, different high halves (and the reverse), on both sides of 0 and of 2^53.
    const ids = [
      1n,
      2n ** 32n + 1n,
      -(2n ** 32n) + 1n,
      2n ** 62n + 1n,
      2n ** 62n + 2n ** 32n + 1n,
      2n ** 32n,
      2n ** 32n - 1n,
      -(2n ** 32n),
      -(2n ** 31n),
      2n ** 31n,
    ];
    for (const [i, id] of ids.entries()) await store.insert({ id, name: `p${i}` });
    expect(await store.size()).toBe(ids.length);
    for (const [i, id] of ids.entries()) expect(await store.get(id)).toEqual({ id, name: `p${i}` });
    expect(await store.get(2n ** 33n + 1n)).toBeUndefined();
    expect(await store.get(2n ** 62n)).toBeUndefined();
  });

  it('finds every one of many ids that share their low half', async () => {
    const store = createMemoryStore();
    const ids = Array.from({ length: 300 }, (_, i) => (BigInt(i - 150) << 32n) | 7n);
    for (const id of ids) expect(await store.insert({ id, name: String(id) })).toEqual({ created: true });
    for (const id of ids) expect(await store.get(id)).toEqual({ id, name: String(id) });
    expect((await store.list()).map((p) => p.id)).toEqual(ids);
    expect(await store.get(8n)).toBeUndefined();
  });

  it('answers like a Map for any int64 ids, the bounds and 2^53 and 2^62 neighbourhoods included', async () => {
    const near = (centre: bigint) => fc.bigInt({ min: centre - 3n, max: centre + 3n });
    const id = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: -3n, max: 3n }),
      near(2n ** 53n),
      near(-(2n ** 53n)),
      near(2n ** 62n),
      fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 63n) + 3n }),
      fc.bigInt({ min: 2n ** 63n - 4n, max: 2n ** 63n - 1n }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(id, { maxLength: 60 }), fc.array(id, { maxLength: 10 }), async (inserted, probed) => {
        const store = createMemoryStore();
        const expected = new Map<bigint, string>();
        for (const [i, id] of inserted.entries()) {
          const result = await store.insert({ id, name: `n${i}` });
          expect(result).toEqual(
            expected.has(id) ? { created: false, existing: { id, name: expected.get(id) } } : { created: true },
          );
          if (!expected.has(id)) expected.set(id, `n${i}`);
        }
        expect(await store.list()).toEqual([...expected].map(([id, name]) => ({ id, name })));
        for (const id of [...inserted, ...probed]) {
          expect(await store.get(id)).toEqual(expected.has(id) ? { id, name: expected.get(id) } : undefined);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('lists thousands of plants in insertion order, small and big ids and any names mixed', async () => {
    const store = createMemoryStore();
    // More than two chunks of 1024 entries and many growths of the id index; one name in 100 is not Latin-1.
    const expected = Array.from({ length: 3000 }, (_, i) => {
      const id = i % 3 === 0 ? BigInt(i) : i % 3 === 1 ? 2n ** 62n + BigInt(i) : -(2n ** 63n) + BigInt(i);
      const name = i % 100 === 0 ? `🌿\ud800${i}` : i % 7 === 0 ? '' : `plant ${i}`;
      return i % 2 === 0 ? { id, name, tag: i % 4 === 0 ? '' : `t${i}` } : { id, name };
    });
    for (const plant of expected) expect(await store.insert(plant)).toEqual({ created: true });
    expect(await store.size()).toBe(3000);
    expect(await store.list()).toEqual(expected);
    for (const plant of expected) expect(await store.get(plant.id)).toEqual(plant);
  });

  it('keeps plants whose names together are longer than a string can be', async () => {
    const store = createMemoryStore();
    // Each name shares one 2^19-character string (V8 concatenates lazily), so 1024 of them cost little
    // memory but would make a string past V8's maximum length (2^29 - 24) if joined.
    const long = 'x'.repeat(2 ** 19);
    for (let i = 0; i < 1100; i++)
      expect(await store.insert({ id: BigInt(i), name: `${i}${long}` })).toEqual({ created: true });
    for (const i of [0, 1023, 1024, 1099])
      expect(await store.get(BigInt(i))).toEqual({ id: BigInt(i), name: `${i}${long}` });
    expect((await store.list()).map((p) => p.name.slice(0, 4))).toEqual(
      Array.from({ length: 1100 }, (_, i) => `${i}${long}`.slice(0, 4)),
    );
  });

  it('refuses to store an id outside int64 rather than store it under another id', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 0n, name: 'zero' });
    // 2^64 has the same 64 low bits as 0, and 2^63 as -2^63.
    await expect(store.insert({ id: 2n ** 64n, name: 'wrapped' })).rejects.toThrow(RangeError);
    await expect(store.insert({ id: 2n ** 63n, name: 'wrapped' })).rejects.toThrow(RangeError);
    expect(await store.get(2n ** 64n)).toBeUndefined();
    expect(await store.list()).toEqual([{ id: 0n, name: 'zero' }]);
  });

  it('lists plants in insertion order, with no tag member on untagged plants', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 3n, name: 'c' });
    await store.insert({ id: 1n, name: 'a', tag: 't' });
    await store.insert({ id: 2n, name: 'b', tag: '' });
    const list = await store.list();
    expect(list).toEqual([
      { id: 3n, name: 'c' },
      { id: 1n, name: 'a', tag: 't' },
      { id: 2n, name: 'b', tag: '' },
    ]);
    expect('tag' in list[0]!).toBe(false);
  });

  it("stores only the spec's fields of the object it is given", async () => {
    const store = createMemoryStore();
    const plant = fullPlant(1n);
    await store.insert({ ...plant, extra: 'secret' } as never);
    expect({ ...(await store.get(1n)) }).toStrictEqual(plantOf(plant));
  });

  it('refuses a seeded plant that no request could create, with a TypeError naming the field, storing nothing', async () => {
    const store = createMemoryStore();
    const cases: [unknown, string][] = [
      [null, "a plant must be an object with the spec's fields; got null"],
      ['Fern', 'a plant must be an object with the spec\'s fields; got "Fern"'],
      [
        { id: '7', name: 'a' },
        'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got "7"',
      ],
      [
        { id: 1.5, name: 'a' },
        'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got 1.5',
      ],
      [
        { id: null, name: 'a' },
        'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got null',
      ],
      [
        { id: 2 ** 53, name: 'a' },
        'plant id must be an integer between -9223372036854775808 and 9223372036854775807 (a bigint, or a safe integer number); got 9007199254740992',
      ],
      [{ id: 1n, name: 5 }, 'plant name must be a string; got 5'],
      [{ id: 1n, name: { toString: () => 'a' } }, 'plant name must be a string; got an object'],
      [{ id: 1n, name: 'a', tag: null }, 'plant tag must be a string when present; got null'],
      [{ id: 1n, name: 'a', tag: 7 }, 'plant tag must be a string when present; got 7'],
    ];
    for (const [plant, message] of cases) {
      const refused = store.insert(plant as never);
      await expect(refused).rejects.toThrow(TypeError);
      await expect(refused).rejects.toThrow(message);
    }
    expect(await store.size()).toBe(0);
    expect(await store.insert({ id: 1n, name: 'a', tag: 't' })).toEqual({ created: true });
    expect(await store.list()).toEqual([{ id: 1n, name: 'a', tag: 't' }]);
  });

  it('keeps a safe integer number id as the bigint a request would have made', async () => {
    const store = createMemoryStore();
    expect(await store.insert({ id: 42, name: 'Oak' } as never)).toEqual({ created: true });
    expect(await store.get(42n)).toEqual({ id: 42n, name: 'Oak' });
    expect(await store.insert({ id: 42n, name: 'Elm' })).toEqual({
      created: false,
      existing: { id: 42n, name: 'Oak' },
    });
  });

  it('lets exactly one of many concurrent inserts of one id win', async () => {
    const store = createMemoryStore();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.insert({ id: 9n, name: `n${i}` })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await store.size()).toBe(1);
  });

  it('gives back exactly the plant it stored, whatever its fields hold, an absent field absent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyPlant(fc.constant(0n)), { maxLength: 8 }), async (drawn) => {
        const store = createMemoryStore();
        const expected = drawn.map((plant, i) => ({ ...plant, id: BigInt(i) }));
        for (const plant of expected) await store.insert(plant);
        expect(await store.list()).toEqual(expected);
        for (const plant of expected) {
          const got = await store.get(plant.id);
          expect(got).toEqual(plant);
          expect(Object.keys(got ?? {}).sort()).toEqual(Object.keys(plant).sort());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('clears every plant', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 1n, name: 'a' });
    await store.clear();
    expect(await store.size()).toBe(0);
    expect(await store.get(1n)).toBeUndefined();
    expect(await store.insert({ id: 1n, name: 'b' })).toEqual({ created: true });
  });

  it('starts afresh after clear, even once it held more than a chunk of plants', async () => {
    const store = createMemoryStore();
    for (let i = 0; i < 1500; i++) await store.insert({ id: 2n ** 62n + BigInt(i), name: `old ${i}`, tag: 't' });
    await store.clear();
    expect(await store.get(2n ** 62n)).toBeUndefined();
    expect(await store.list()).toEqual([]);
    const fresh = [
      { id: 2n ** 62n + 1n, name: 'new' },
      { id: 5n, name: 'five', tag: 'x' },
    ];
    for (const plant of fresh) expect(await store.insert(plant)).toEqual({ created: true });
    expect(await store.list()).toEqual(fresh);
    expect(await store.get(2n ** 62n + 1n)).toEqual(fresh[0]);
    expect(await store.size()).toBe(2);
  });

  it('refuses every operation after close', async () => {
    const store = createMemoryStore();
    await store.close();
    await expect(store.insert({ id: 1n, name: 'a' })).rejects.toThrow('closed');
    await expect(store.size()).rejects.toThrow('closed');
  });
});
