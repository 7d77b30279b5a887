// This file is generated from the core's NewPlant rules (packages/core/src/internal/new-plant.ts,
// the module the server validates bodies with) by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

/** The messages of the service's 40002 answers, byte for byte: one per NewPlant rule, naming the field. */
export const PLANT_MESSAGES = {
  notObject: "body must be a JSON object",
  idRequired: "id is required",
  idRange: "id must be an integer between -9223372036854775808 and 9223372036854775807",
  nameRequired: "name is required",
  nameType: "name must be a string",
  tagType: "tag must be a string when present",
} as const;
