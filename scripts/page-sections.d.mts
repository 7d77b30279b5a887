// Types of page-sections.mjs: the generated parts of the documentation pages, between marker comments.

/** The command that writes every part made from openapi.yaml (scripts/spec-pages.mjs). */
export const SPEC_PAGES_COMMAND: string;
/** One generated part: the page (from the repository's root), its two markers, what stands between them. */
export interface Section {
  readonly page: string;
  readonly start: string;
  readonly end: string;
  readonly body: string;
}
/** A Markdown table cell: `|` escaped everywhere (code spans too, as GitHub wants), `<` and `>` outside code. */
export function tableCell(markdown: string): string;
/** A generated table as a section's body: a comment saying what it is made from, the header row, a row per entry. */
export function tableBody(note: string, headers: readonly string[], rows: readonly (readonly string[])[]): string;
/** `page` with the text between `start` and `end` replaced by `body`; throws when it has no such section. */
export function withSection(page: string, start: string, end: string, body: string): string;
/** Writes every section into its page, or with `--check` only compares and exits 1 when a page differs. */
export function writeSections(
  root: string,
  sections: readonly Section[],
  labels: { readonly what: string; readonly command: string },
): Promise<void>;
