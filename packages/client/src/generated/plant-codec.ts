// This file is generated from openapi.yaml's Plant and NewPlant by `npm run generate` (scripts/plant-shape.mjs). Do not edit
// it by hand: the tests fail when it differs from what the generator writes.

import type { NewPlant, Plant } from '../types.js';
import { PLANT_MESSAGES, type NewPlantField } from './plant-shape.js';

/**
 * What a form holds for a plant: text for strings and numbers (an int64 converted exactly), a boolean
 * for a true-or-false field. An empty optional field means the field is absent.
 */
export interface NewPlantFormValues {
  readonly id: string;
  readonly name: string;
  readonly tag?: string | undefined;
}

/**
 * Checks a create's input and writes its JSON body, so input that cannot be sent faithfully never
 * reaches the wire. JSON.stringify cannot write a bigint, so an int64 is written from its exact digits.
 * Only the spec's fields are written: anything else on the object stays on the caller's side.
 */
export function writeNewPlant(plant: NewPlant): string {
  if (typeof plant !== 'object' || plant === null) throw new TypeError('newPlant must be an object');
  const f0 = plant.id;
  if ((typeof f0 === 'bigint' ? BigInt.asIntN(64, f0) !== f0 : !Number.isSafeInteger(f0))) {
    throw new TypeError(`id must be an integer between -9223372036854775808 and 9223372036854775807; numbers above 2^53-1 must be passed as bigint (got ${f0 as number})`);
  }
  const f1 = plant.name;
  if (!(typeof f1 === 'string')) throw new TypeError("name must be a string");
  const f2 = plant.tag;
  if (f2 !== undefined && !(typeof f2 === 'string')) throw new TypeError("tag must be a string when present");
  let out = '{';
  out += "\"id\":" + String(plant.id);
  out += ",\"name\":" + JSON.stringify(plant.name);
  if (plant.tag !== undefined) out += ",\"tag\":" + JSON.stringify(plant.tag);
  return out + '}';
}

/**
 * Every rule `body` breaks as a NewPlant, each `[message, field]` in the service's order, with the
 * service's messages; and the plant of the spec's fields that are valid. `undefined` means absent.
 */
export function newPlantIssues(body: Record<string, unknown>): { issues: [string, NewPlantField][]; plant: Record<string, unknown> } {
  const issues: [string, NewPlantField][] = [];
  const plant: Record<string, unknown> = {};
  const f0 = body.id;
  if (f0 === undefined) issues.push([PLANT_MESSAGES["idRequired"], "id"]);
  else if (!((typeof f0 === 'bigint' ? BigInt.asIntN(64, f0) === f0 : Number.isSafeInteger(f0)))) issues.push([unsafeNumber(f0) ? "id beyond ±(2^53-1) must be a bigint: a number that large may have been rounded already" : PLANT_MESSAGES["idInvalid"], "id"]);
  else plant.id = f0;
  const f1 = body.name;
  if (f1 === undefined) issues.push([PLANT_MESSAGES["nameRequired"], "name"]);
  else if (!(typeof f1 === 'string')) issues.push([PLANT_MESSAGES["nameInvalid"], "name"]);
  else plant.name = f1;
  const f2 = body.tag;
  if (f2 !== undefined) {
    if (!(typeof f2 === 'string')) issues.push([PLANT_MESSAGES["tagInvalid"], "tag"]);
    else plant.tag = f2;
  }
  return { issues, plant };
}

/** A whole number inside the int64 range that a double cannot hold exactly: in range for the service, but not sendable as a number. */
function unsafeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
}

/** A form's values as a NewPlant candidate, for {@link newPlantIssues}. */
export function newPlantFromForm(values: Record<string, unknown>): Record<string, unknown> {
  return {
    id: typeof values.id === 'string' ? int64FromText(values.id) : values.id,
    name: values.name,
    tag: values.tag === '' ? undefined : values.tag,
  };
}

/** An int64 from a form's text, exactly: a number up to 2^53-1, a bigint beyond; other text is passed on for the rule to refuse. */
function int64FromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  // At most 20 digits: more is out of the int64 range anyway, and BigInt need not read a pasted novel.
  if (!/^-?\d{1,20}$/.test(trimmed)) return trimmed;
  const value = BigInt(trimmed);
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/** Whether an answer's parsed body is a spec `Plant`: every answered field present when required, and of its type. */
export function isPlant(value: unknown): value is Plant {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return typeof p.name === 'string' && (p.tag === undefined || typeof p.tag === 'string');
}
