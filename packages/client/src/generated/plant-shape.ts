// This file is generated from openapi.yaml's Plant and NewPlant by `npm run generate`. Do not edit
// it by hand: the tests fail when it differs from what the generator writes.

/** One field of a plant, as the service's OpenAPI document describes it (the keywords the service enforces). */
export interface PlantField {
  /** The JSON member's name. */
  readonly name: string;
  /** The JSON Schema type. */
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  /** How a value is held: int64 as a bigint, int32 and number as a number. */
  readonly kind: 'string' | 'int32' | 'int64' | 'number' | 'boolean';
  readonly format?: 'int32' | 'int64' | 'double' | 'float';
  /** Whether a NewPlant must have it. */
  readonly required: boolean;
  /** Whether the service answers it (a field of `Plant`); `id` is kept, never answered. */
  readonly answered: boolean;
  /** An integer's effective bounds (the format's range narrowed by the keywords), or a number's keywords. */
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  /** A string's bounds, in code points. */
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly enum?: readonly (string | number)[];
  /** The spec's examples of the field, which `makePlants` draws from. */
  readonly examples?: readonly unknown[];
}

/** Every field of a stored plant: NewPlant's own (the key, `id`) first, then Plant's, in the spec's order. */
export const PLANT_FIELDS: readonly PlantField[] = [
  { name: "id", type: "integer", kind: "int64", format: "int64", required: true, answered: false, minimum: -9223372036854775808n, maximum: 9223372036854775807n },
  { name: "name", type: "string", kind: "string", required: true, answered: true, examples: ["Fern","Ivy","Moss","Oak","Rose","Sage","Basil","Mint","Thyme","Aloe","Lily","Orchid","Tulip","Daisy","Maple","Palm","Bamboo","Lavender","Rosemary","Violet","Jasmine","Yucca","Begonia","Giant Sequoia"] },
  { name: "tag", type: "string", kind: "string", required: false, answered: true, examples: ["shade","sun","succulent","herb","vine","flower","tree"] },
];

/** The messages of the service's 40002 answers, byte for byte: one per rule, each naming its field. */
export const PLANT_MESSAGES = {
  notObject: "body must be a JSON object",
  idRequired: "id is required",
  idInvalid: "id must be an integer between -9223372036854775808 and 9223372036854775807",
  nameRequired: "name is required",
  nameInvalid: "name must be a string",
  tagInvalid: "tag must be a string when present",
} as const;

/** One of {@link PLANT_MESSAGES}. */
export type PlantMessage = (typeof PLANT_MESSAGES)[keyof typeof PLANT_MESSAGES];

/** The message of the service's 40003 answer. */
export const CONFLICT_MESSAGE = "id is stored already with a different name or tag";

/** The name of one of NewPlant's fields. */
export type NewPlantField = "id" | "name" | "tag";

/** The names of the fields that are int64: kept as bigints, sent exactly (a bigint, or a safe-integer number). */
export type Int64Field = "id";
