// Types of page-sections.mjs: the generated parts of the documentation pages, between marker comments.

/** One generated part: the page (from the repository's root), its two markers, what stands between them. */
export interface Section {
  readonly page: string;
  readonly start: string;
  readonly end: string;
  readonly body: string;
}
/** A Markdown table cell: `|` escaped everywhere (code spans too, as GitHub wants), `<` and `>` outside code. */
export function tableCell(markdown: string): string;
/** `page` with the text between `start` and `end` replaced by `body`; throws when it has no such section. */
export function withSection(page: string, start: string, end: string, body: string): string;
/** Writes every section into its page, or with `--check` only compares and exits 1 when a page differs. */
export function writeSections(
  root: string,
  sections: readonly Section[],
  labels: { readonly what: string; readonly command: string },
): Promise<void>;
