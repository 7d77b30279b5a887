// NewPlant validation, hand-written for speed and proven equal to the spec's schema by
// test/new-plant-schema.test.ts (Ajv over the spec's components.schemas).
import type { StoredPlant } from '../store.js';
import { int64FromNumberText } from './int64.js';
import { topLevelMemberText } from './raw-member.js';

/** Why a JSON value is not a NewPlant: a message naming the field and the rule, never the data. */
export const PLANT_MESSAGES = {
  notObject: 'body must be a JSON object',
  idRequired: 'id is required',
  idRange: 'id must be an integer between -9223372036854775808 and 9223372036854775807',
  nameRequired: 'name is required',
  nameType: 'name must be a string',
  tagType: 'tag must be a string when present',
} as const;

/** A plant to store, or the message of the 40002 that refuses it. */
export type NewPlantResult = StoredPlant | (typeof PLANT_MESSAGES)[keyof typeof PLANT_MESSAGES];

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Judges `value`, what JSON.parse made of `text`, as a NewPlant. Only `id`, `name` and `tag` are read
 * and copied (unknown members are never stored). Own-property checks matter: JSON.parse makes
 * `__proto__` an ordinary own member, and reading through the prototype would let `{"constructor":…}`
 * or a polluted Object.prototype supply a field the body never had.
 */
export function toNewPlant(value: unknown, text: string): NewPlantResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return PLANT_MESSAGES.notObject;
  const body = value as Record<string, unknown>;
  if (!hasOwn.call(body, 'id')) return PLANT_MESSAGES.idRequired;
  if (typeof body.id !== 'number') return PLANT_MESSAGES.idRange;
  const raw = topLevelMemberText(text, 'id');
  const id = raw === undefined ? undefined : int64FromNumberText(raw);
  if (id === undefined) return PLANT_MESSAGES.idRange;
  if (!hasOwn.call(body, 'name')) return PLANT_MESSAGES.nameRequired;
  const name = body.name;
  if (typeof name !== 'string') return PLANT_MESSAGES.nameType;
  if (!hasOwn.call(body, 'tag')) return { id, name };
  const tag = body.tag;
  if (typeof tag !== 'string') return PLANT_MESSAGES.tagType;
  return { id, name, tag };
}
