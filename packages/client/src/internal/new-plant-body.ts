import type { NewPlant } from '../types.js';
import { INT64_MAX, INT64_MIN } from './int64.js';

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
  // isSendableId's test, inline: as a call it costs createPlant's browser bundle its last bytes of budget.
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
