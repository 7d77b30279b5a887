import type { NewPlant } from '../types.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Checks a create's input and writes its JSON body, so bad input never reaches the wire.
 * JSON.stringify cannot write a bigint and would round nothing we could detect afterwards, so the id
 * is written from its exact digits (the spec's `NewPlant.id`, an int64 kept exactly).
 */
export function newPlantBody(plant: NewPlant): string {
  if (typeof plant !== 'object' || plant === null) {
    throw new TypeError('newPlant must be an object');
  }
  const { id, name, tag } = plant;
  // A number past 2^53-1 has been rounded already by the time it reaches us: sending it would store
  // a different id than the caller wrote, so it must come as a bigint.
  if (typeof id === 'bigint' ? id < INT64_MIN || id > INT64_MAX : !Number.isSafeInteger(id)) {
    throw new TypeError(
      `id must be an integer between ${INT64_MIN} and ${INT64_MAX}; numbers above 2^53-1 must be passed as bigint (got ${id as number})`,
    );
  }
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  if (tag !== undefined && typeof tag !== 'string') throw new TypeError('tag must be a string when present');
  // Only the spec's fields: anything else on the object stays on the caller's side.
  return `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
}
