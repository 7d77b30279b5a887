// Types of error-table.mjs: the error table of README.md and docs/service.md, made from openapi.yaml.

import type { Section } from './page-sections.mjs';

export const ERROR_TABLE_START: string;
export const ERROR_TABLE_END: string;
/** The pages that hold the table, from the repository's root. */
export const ERROR_TABLE_PAGES: readonly string[];
/** One x-error-codes entry of openapi.yaml, with its name. */
export interface ErrorCodeEntry {
  readonly name: string;
  readonly code: number;
  readonly status: number;
  readonly description: string;
  readonly remedy: string;
  readonly userMessage: string;
  readonly transport?: boolean;
}
/** The spec's x-error-codes entries, in order of code; throws when one lacks a description, remedy or userMessage. */
export function errorCodes(spec?: unknown): ErrorCodeEntry[];
/** The table: what stands between the two markers. */
export function errorTable(spec?: unknown): string;
/** The table on each of its pages. */
export function errorSections(spec?: unknown): Section[];
