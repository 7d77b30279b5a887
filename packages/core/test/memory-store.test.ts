import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/index.js';

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
    expect(await store.insert({ id: 1n, name: 'Ivy', tag: 't' })).toEqual({ created: false, existing: { id: 1n, name: 'Fern' } });
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

  it('stores only id, name and tag of the object it is given', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 1n, name: 'a', extra: 'secret' } as never);
    expect(await store.get(1n)).toEqual({ id: 1n, name: 'a' });
  });

  it('lets exactly one of many concurrent inserts of one id win', async () => {
    const store = createMemoryStore();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.insert({ id: 9n, name: `n${i}` })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await store.size()).toBe(1);
  });

  it('gives back exactly the name and tag it stored, whatever characters they hold', async () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\0', '\0-x', '\u00003:abc', '12:', ':'));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ name: text, tag: fc.option(text, { nil: undefined }) }), { maxLength: 8 }), async (plants) => {
        const store = createMemoryStore();
        const expected = plants.map(({ name, tag }, i) => (tag === undefined ? { id: BigInt(i), name } : { id: BigInt(i), name, tag }));
        for (const plant of expected) await store.insert(plant);
        expect(await store.list()).toEqual(expected);
        for (const plant of expected) {
          const got = await store.get(plant.id);
          expect(got).toEqual(plant);
          expect(got !== undefined && 'tag' in got).toBe('tag' in plant);
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

  it('refuses every operation after close', async () => {
    const store = createMemoryStore();
    await store.close();
    await expect(store.insert({ id: 1n, name: 'a' })).rejects.toThrow('closed');
    await expect(store.size()).rejects.toThrow('closed');
  });
});
