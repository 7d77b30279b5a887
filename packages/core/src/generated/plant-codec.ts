// This file is generated from openapi.yaml's Plant and NewPlant by `npm run generate` (scripts/plant-shape.mjs). Do not edit
// it by hand: the tests fail when it differs from what the generator writes.

import { int64FromNumberText } from '../internal/int64.js';
import { topLevelMemberText } from '../internal/raw-member.js';
import { PLANT_MESSAGES, type PlantMessage } from './plant-shape.js';

/**
 * A plant as the service stores it: the exact int64 id and the fields of the spec's `Plant` (an int64
 * as a bigint). What a caller sends is the client's `NewPlant`; what the service answers is a `Plant`
 * (no id). Fields other than the spec's are never stored.
 */
export interface StoredPlant {
  readonly id: bigint;
  readonly name: string;
  readonly tag?: string;
}

/** A plant as code may give one to a store or the mocks: a {@link StoredPlant}, an int64 also as a safe-integer number. */
export interface PlantInput {
  readonly id: bigint | number;
  readonly name: string;
  readonly tag?: string | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Judges `value`, what JSON.parse made of `text`, as a NewPlant: the plant to store, or the message of
 * the 40002 that refuses it (the first rule broken, in field order). Only the spec's fields are read and
 * copied. Own-property checks matter: JSON.parse makes `__proto__` an ordinary own member, and reading
 * through the prototype would let a polluted Object.prototype supply a field the body never had. An
 * int64 is read from the body's text, since JSON.parse rounds beyond 2^53.
 */
export function readNewPlant(value: unknown, text: string): StoredPlant | PlantMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return PLANT_MESSAGES.notObject;
  const body = value as Record<string, unknown>;
  if (!hasOwn.call(body, "id")) return PLANT_MESSAGES["idRequired"];
  const f0 = typeof body.id === 'number' ? int64FromNumberText(topLevelMemberText(text, "id")!) : undefined;
  if (f0 === undefined) return PLANT_MESSAGES["idInvalid"];
  if (!hasOwn.call(body, "name")) return PLANT_MESSAGES["nameRequired"];
  const f1 = body.name as string;
  if (!(typeof f1 === 'string')) return PLANT_MESSAGES["nameInvalid"];
  let f2: string | undefined;
  if (hasOwn.call(body, "tag")) {
    f2 = body.tag as string;
    if (!(typeof f2 === 'string')) return PLANT_MESSAGES["tagInvalid"];
  }
  const plant: Mutable<StoredPlant> = { id: f0, name: f1 };
  if (f2 !== undefined) plant.tag = f2;
  return plant;
}

/**
 * The plant a store keeps for `value`: checked against the spec's rules, and copied down to the spec's
 * fields (whatever else the object carries is never stored). An int64 may be a safe-integer number
 * (`{ id: 42 }` is unambiguous); it is kept as a bigint. Takes `unknown`: it checks what types cannot.
 * @throws TypeError naming the field whose value has the wrong type, RangeError for one outside its rules.
 */
export function toStoredPlant(value: unknown): StoredPlant {
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(`a plant must be an object with the spec's fields; got ${show(value)}`);
  }
  const input = value as Record<string, unknown>;
  const r0 = input.id;
  if (r0 === undefined) throw new TypeError(`plant ${PLANT_MESSAGES["idRequired"]}`);
  const f0 = typeof r0 === 'bigint' ? r0 : Number.isSafeInteger(r0) ? BigInt(r0 as number) : undefined;
  if (f0 === undefined) throw new TypeError(`plant ${PLANT_MESSAGES["idInvalid"]} (a bigint, or a safe integer number); got ${show(r0)}`);
  if ((BigInt.asIntN(64, f0) !== f0)) throw new RangeError(`plant ${PLANT_MESSAGES["idInvalid"]}; got ${f0}`);
  const r1 = input.name;
  if (r1 === undefined) throw new TypeError(`plant ${PLANT_MESSAGES["nameRequired"]}`);
  const f1 = r1 as string;
  if (!(typeof f1 === 'string')) throw new TypeError(`plant ${PLANT_MESSAGES["nameInvalid"]}; got ${show(r1)}`);
  const r2 = input.tag;
  const f2 = r2 as string | undefined;
  if (f2 !== undefined && !(typeof f2 === 'string')) throw new TypeError(`plant ${PLANT_MESSAGES["tagInvalid"]}; got ${show(r2)}`);
  const plant: Mutable<StoredPlant> = { id: f0, name: f1 };
  if (f2 !== undefined) plant.tag = f2;
  return plant;
}

/** The 200 body: the stored plant's answered fields (the spec's `Plant`), never the id. */
export function writePlant(plant: StoredPlant): string {
  let out = '{';
  out += "\"name\":" + JSON.stringify(plant.name);
  if (plant.tag !== undefined) out += ",\"tag\":" + JSON.stringify(plant.tag);
  return out + '}';
}

/** Whether two plants under one id are the same create (a replay) rather than a conflict: every field equal. */
export function samePlant(a: StoredPlant, b: StoredPlant): boolean {
  return a.name === b.name && a.tag === b.tag;
}

/** A value, named for a message without quoting a long string. */
function show(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? 'a long string' : JSON.stringify(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return typeof value === 'bigint' ? `${value}n` : String(value);
}
