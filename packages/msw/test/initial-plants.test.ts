import { createPlant, ErrorCode } from '@plant-store/client';
import { PLANT_FIELDS, type StoredPlant, toStoredPlant } from '@plant-store/core';
import { createMemoryStore, createPlantStoreHandlers, makePlants } from '@plant-store/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fullPlant, otherValue, VALUE_FIELDS, without } from '../../core/src/internal/conformance-values.js';

describe('makePlants', () => {
  it('gives the same plants for the same seed, and others for another seed', () => {
    expect(makePlants(50, { seed: 7 })).toEqual(makePlants(50, { seed: 7 }));
    expect(makePlants(50, { seed: 7 })).not.toEqual(makePlants(50, { seed: 8 }));
    expect(makePlants(3)).toEqual(makePlants(3, { seed: 1 }));
  });

  it('starts makePlants(n + 1) with makePlants(n)', () => {
    expect(makePlants(41, { seed: 3 }).slice(0, 40)).toEqual(makePlants(40, { seed: 3 }));
  });

  it('gives distinct positive int64 ids, some above 2^53, and plants a request could create, each optional field on most', () => {
    const plants = makePlants(2000, { seed: 11 });
    const ids = plants.map((p) => p.id);
    expect(new Set(ids).size).toBe(2000);
    for (const id of ids) expect(id > 0n && id < 2n ** 63n).toBe(true);
    const big = ids.filter((id) => id > 2n ** 53n).length;
    expect(big).toBeGreaterThan(300);
    expect(big).toBeLessThan(700);
    // Every field within the spec's rules, as the service would store it.
    for (const p of plants) expect(toStoredPlant(p)).toStrictEqual(p);
    for (const field of PLANT_FIELDS.filter(({ required }) => !required)) {
      const without = plants.filter((p) => !(field.name in p)).length;
      expect(without, field.name).toBeGreaterThan(300);
      expect(without, field.name).toBeLessThan(700);
    }
    for (const p of plants) expect(p.name).toMatch(/^[A-Z][a-z]+( [A-Z][a-z]+)?$/);
  });

  it('refuses a count that is not a whole number from 0 to a million, and a seed that is not an integer', () => {
    expect(makePlants(0)).toEqual([]);
    for (const count of [-1, 1.5, Number.NaN, 1_000_001]) expect(() => makePlants(count)).toThrow(RangeError);
    expect(() => makePlants(1, { seed: 0.5 })).toThrow(TypeError);
  });
});

describe('initialPlants', () => {
  const plants = makePlants(20, { seed: 5 });
  const mocks = createPlantStoreHandlers({ initialPlants: plants });
  const server = setupServer(...mocks.handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(async () => {
    server.resetHandlers();
    await mocks.reset();
  });
  afterAll(() => server.close());

  it('starts the store with the plants, in their order', async () => {
    expect(await mocks.store.list()).toEqual(plants);
  });

  it('answers a seeded plant sent again with 200 and another plant under its id with 40003', async () => {
    const [first] = plants;
    const answered = PLANT_FIELDS.filter(({ answered, name }) => answered && name in first!);
    await expect(createPlant('t', first!)).resolves.toStrictEqual(
      Object.fromEntries(answered.map(({ name }) => [name, first![name as keyof typeof first]])),
    );
    await expect(createPlant('t', { id: first!.id, name: `${first!.name} II` })).rejects.toMatchObject({
      code: ErrorCode.ID_CONFLICT,
    });
  });

  it('puts the initial plants back with reset(), and drops the others', async () => {
    await createPlant('t', { id: -5, name: 'Extra' });
    await mocks.store.clear();
    await mocks.reset();
    expect(await mocks.store.list()).toEqual(plants);
  });

  it('holds every initial plant before the first request, also those sent as numbers', async () => {
    const seeded = createPlantStoreHandlers({
      initialPlants: [
        { id: 1, name: 'Fern' },
        { id: 2n ** 60n, name: 'Oak', tag: 'tree' },
      ],
    });
    expect(await seeded.store.list()).toEqual([
      { id: 1n, name: 'Fern' },
      { id: 2n ** 60n, name: 'Oak', tag: 'tree' },
    ]);
  });
});

describe('initialPlants refusals', () => {
  it('refuses a plant no request could create, and one id given twice with different plants, where written', () => {
    expect(() => createPlantStoreHandlers({ initialPlants: [{ id: 1.5, name: 'x' }] })).toThrow(TypeError);
    expect(() => createPlantStoreHandlers({ initialPlants: [{ id: 2n ** 63n, name: 'x' }] })).toThrow(RangeError);
    expect(() =>
      createPlantStoreHandlers({
        initialPlants: [
          { id: 1, name: 'Fern' },
          { id: 1n, name: 'Ivy' },
        ],
      }),
    ).toThrow(/id 1 twice/);
    expect(() =>
      createPlantStoreHandlers({
        initialPlants: [
          { id: 1, name: 'Fern' },
          { id: 1n, name: 'Fern' },
        ],
      }),
    ).not.toThrow();
  });

  it('refuses one id given twice with plants differing in any one field, an optional one absent from one', () => {
    const full = fullPlant(1n);
    const variants = VALUE_FIELDS.flatMap((field) => {
      const other = otherValue(field, full[field.name]);
      return [
        ...(other === undefined ? [] : [{ ...full, [field.name]: other }]),
        ...(field.required ? [] : [without(full, field)]),
      ];
    });
    expect(variants.length).toBeGreaterThanOrEqual(VALUE_FIELDS.length);
    for (const variant of variants) {
      expect(() => createPlantStoreHandlers({ initialPlants: [full, variant] as unknown as StoredPlant[] })).toThrow(
        /id 1 twice/,
      );
    }
  });

  it('fails the requests, never answering them from a half-seeded store, when the store holds an id with another plant', async () => {
    const store = createMemoryStore();
    await store.insert({ id: 1n, name: 'Oak' });
    const mocks = createPlantStoreHandlers({ store, initialPlants: [{ id: 1n, name: 'Fern' }] });
    const server = setupServer(...mocks.handlers);
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const response = await fetch('http://127.0.0.1:4010/plants', {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"id":2,"name":"Ivy"}',
      });
      expect(response.status).toBe(500);
      expect(await store.size()).toBe(1);
    } finally {
      server.close();
    }
  });
});
