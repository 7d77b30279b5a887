// Types of plant-fields.mjs: the plant's fields on the pages that describe them, made from openapi.yaml.

import type { Section } from './page-sections.mjs';
import type { ShapeField } from './plant-shape.mjs';

/** The page that describes the fields, from the repository's root. */
export const FIELDS_PAGE: string;
/** The page that shows the store's interface. */
export const STORED_PLANT_PAGE: string;
/** openapi.yaml, parsed. */
export function readSpec(): unknown;
/** One field as scripts/plant-shape.mjs reads it, with its description. */
export interface DescribedField extends ShapeField {
  readonly description: string;
}
/** The fields of `spec`, in NewPlant's order; throws naming a field without a description. */
export function describedFields(spec: unknown): DescribedField[];
/** The table of the fields: what stands between its two markers. */
export function fieldsTable(spec?: unknown): string;
/** The 40002 messages byte for byte, in the order the service checks, and the 40003 message. */
export function plantMessageList(spec?: unknown): string;
/** The core's `StoredPlant`, as `npm run generate` writes it, for a block of the stores' page. */
export function storedPlantBlock(spec?: unknown): string;
/** Every part plant-fields.mjs makes, with its page and markers. */
export function plantFieldSections(spec?: unknown): Section[];
