// Types of error-table.mjs: the error table of README.md and docs/service.md, made from openapi.yaml,
// and docs/service.md's list of the 40002 messages.

import type { Section } from './page-sections.mjs';

export const ERROR_TABLE_START: string;
export const ERROR_TABLE_END: string;
/** The command that rewrites the table on its pages. */
export const ERROR_TABLE_COMMAND: string;
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
export function errorCodes(): ErrorCodeEntry[];
/** The table: what stands between the two markers. */
export function errorTable(): string;
/** Every part the script writes: the table on each of its pages, and the 40002 messages. */
export function errorSections(): Promise<Section[]>;
