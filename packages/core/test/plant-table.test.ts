import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlantTable, type StoredPlant } from '../src/index.js';
import { barePlant, fullPlant, plantOf } from '../src/internal/conformance-values.js';

/** Small, big (past 2^53 and 2^62), negative and extreme ids, tags on some, names that need the NUL encoding on some. */
function plantAt(i: number, label = 'p'): StoredPlant {
  const id = [BigInt(i), 2n ** 62n + BigInt(i), -BigInt(i) - 1n, -(2n ** 63n) + BigInt(i)][i % 4]!;
  const name = i % 5 === 0 ? `\0${label}${i}` : `${label}${i}`;
  return i % 3 === 0 ? { id, name, tag: i % 2 === 0 ? '' : `t${i}` } : { id, name };
}

function tableOf(plants: readonly StoredPlant[]): PlantTable {
  const table = new PlantTable();
  for (const plant of plants) expect(table.add(plant)).toBeUndefined();
  return table;
}

function expectExactly(table: PlantTable, kept: readonly StoredPlant[], gone: readonly StoredPlant[]): void {
  expect(table.size).toBe(kept.length);
  expect(table.list()).toEqual(kept);
  for (const plant of kept) expect(table.get(plant.id)).toEqual(plant);
  for (const plant of gone) expect(table.get(plant.id)).toBeUndefined();
}

describe('PlantTable', () => {
  it('adds, finds and lists in insertion order; a taken id answers the stored plant and changes nothing', () => {
    const table = tableOf([
      { id: 3n, name: 'c' },
      { id: 1n, name: 'a', tag: 't' },
    ]);
    expect(table.add({ id: 3n, name: 'other', tag: 'x' })).toEqual({ id: 3n, name: 'c' });
    expect(table.list()).toEqual([
      { id: 3n, name: 'c' },
      { id: 1n, name: 'a', tag: 't' },
    ]);
    expect(table.get(2n)).toBeUndefined();
  });

  it('takes a safe integer number as an id, the same id as its bigint', () => {
    const table = new PlantTable();
    expect(table.add({ id: -(2 ** 53) + 1, name: 'low' })).toBeUndefined();
    expect(table.add({ id: 2 ** 40, name: 'n', tag: 't' })).toBeUndefined();
    expect(table.add({ id: 2n ** 40n, name: 'b' })).toEqual({ id: 2n ** 40n, name: 'n', tag: 't' });
    expect(table.add({ id: -(2 ** 53) + 1, name: 'again' })).toEqual({ id: -(2n ** 53n) + 1n, name: 'low' });
    expect(table.get(-(2n ** 53n) + 1n)).toEqual({ id: -(2n ** 53n) + 1n, name: 'low' });
    expect(table.list().map((p) => p.id)).toEqual([-(2n ** 53n) + 1n, 2n ** 40n]);
  });

  it('refuses, adding nothing, an id outside int64 or a number that is not a safe integer', () => {
    const table = tableOf([{ id: 0n, name: 'zero' }]);
    for (const id of [2n ** 64n, 2n ** 63n, -(2n ** 63n) - 1n, 2 ** 53, 1.5, Number.NaN]) {
      expect(() => table.add({ id, name: 'bad' })).toThrow(RangeError);
    }
    expect(table.list()).toEqual([{ id: 0n, name: 'zero' }]);
  });

  it('truncates into a joined chunk: the kept plants stay, the cut ids are free, re-adding them joins the chunk again', () => {
    // 2500 plants: chunks 0 and 1 joined, chunk 2 filling; 1500 cuts into joined chunk 1 and drops chunk 2.
    const plants = Array.from({ length: 2500 }, (_, i) => plantAt(i));
    const table = tableOf(plants);
    table.truncate(1500);
    expectExactly(table, plants.slice(0, 1500), plants.slice(1500));
    // The same ids again, under other names: past 2048 chunk 1 is full and joined again.
    const again = Array.from({ length: 1000 }, (_, i) => ({ ...plantAt(1500 + i, 'again'), id: plants[1500 + i]!.id }));
    for (const plant of again) expect(table.add(plant)).toBeUndefined();
    expectExactly(table, [...plants.slice(0, 1500), ...again], []);
    for (const plant of plants) expect(table.add(plant)).not.toBeUndefined();
  });

  it('truncates at chunk boundaries, to nothing, and to more than it holds', () => {
    const plants = Array.from({ length: 3000 }, (_, i) => plantAt(i));
    const table = tableOf(plants);
    table.truncate(5000);
    expectExactly(table, plants, []);
    table.truncate(2048);
    expectExactly(table, plants.slice(0, 2048), plants.slice(2048));
    table.truncate(1023);
    expectExactly(table, plants.slice(0, 1023), plants.slice(1023));
    table.truncate(1023);
    expectExactly(table, plants.slice(0, 1023), plants.slice(1023));
    for (const plant of plants.slice(1023, 1030)) expect(table.add(plant)).toBeUndefined();
    expectExactly(table, plants.slice(0, 1030), plants.slice(1030));
    table.truncate(0);
    expectExactly(table, [], plants);
    for (const plant of plants) expect(table.add(plant)).toBeUndefined();
    expectExactly(table, plants, []);
    expect(() => table.truncate(-1)).toThrow(RangeError);
  });

  it('answers like an array and a Map under any adds and truncations', () => {
    const id = fc.oneof(
      fc.bigInt({ min: -5n, max: 40n }),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.bigInt({ min: 2n ** 62n, max: 2n ** 62n + 5n }),
    );
    const op = fc.oneof(
      { arbitrary: fc.record({ add: fc.array(id, { maxLength: 1200 }) }), weight: 3 },
      { arbitrary: fc.record({ truncate: fc.nat({ max: 3000 }) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 8 }), (ops) => {
        const table = new PlantTable();
        let model: StoredPlant[] = [];
        let n = 0;
        for (const step of ops) {
          if ('truncate' in step) {
            table.truncate(step.truncate);
            model = model.slice(0, step.truncate);
            continue;
          }
          for (const added of step.add) {
            // Every field of the shape, at its edges by turns, and only the required ones on every other plant.
            const plant = plantOf(n % 2 === 0 ? barePlant(added, n) : fullPlant(added, n));
            n++;
            const existing = model.find((p) => p.id === added);
            expect(table.add(plant)).toEqual(existing);
            if (existing === undefined) model.push(plant);
          }
        }
        expect(table.size).toBe(model.length);
        expect(table.list()).toEqual(model);
        for (const plant of model) expect(table.get(plant.id)).toEqual(plant);
      }),
      { numRuns: 60 },
    );
  });

  it('forgets everything on clear', () => {
    const table = tableOf(Array.from({ length: 1500 }, (_, i) => plantAt(i)));
    table.clear();
    expectExactly(table, [], [plantAt(0), plantAt(1499)]);
    expect(table.add(plantAt(7))).toBeUndefined();
    expect(table.list()).toEqual([plantAt(7)]);
  });
});
