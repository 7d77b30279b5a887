// The figures docs/operations.md and docs/postgres.md quote, taken from the results block of
// bench/README.md (the last full run), so that no page quotes another run. A quoted figure is
// written in the page between two comments that say where it comes from:
//
//   <!-- bench: section="### Operations" row="`--log`" cell=5 n=1 -->1.54x<!-- /bench -->
//
// `section`: the first line of the block that contains it opens the search (optional); `row`: the
// first line after that which contains it; `cell`: that table row's cell (1 = the first), or the
// whole line when absent; `n`: which number in it (0 = the first, -1 the last; a number keeps its thousands
// commas, decimals and a trailing `x`). A full run rewrites every such figure (lib/report.mjs), and
// test/bench/doc-figures.test.ts fails where a page's figure is not the block's.
import { readFileSync, writeFileSync } from 'node:fs';
import { END_MARKER, README, START_MARKER } from './report.mjs';

/** The pages that quote bench figures. */
export const FIGURE_PAGES = ['docs/operations.md', 'docs/postgres.md'].map(
  (page) => new URL(`../../${page}`, import.meta.url),
);

const FIGURE = /<!-- bench: (.*?) -->(.*?)<!-- \/bench -->/g;
const NUMBER = /\d[\d,]*(?:\.\d+)?x?/g;
/** What a figure reads where the block has no such line (its part has not had a full run yet). */
export const MISSING = '(not in the last full run)';

/** The results block of bench/README.md. */
export function resultsBlock(page = readFileSync(README, 'utf8')) {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error('bench/README.md has no results block');
  return page.slice(start, end);
}

/** Reads a figure's source (`section="…" row="…" cell=3 n=0`) into its parts. */
function parseSource(source) {
  const fields = {};
  for (const [, key, quoted, bare] of source.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g))
    fields[key] = quoted ?? bare;
  if (fields.row === undefined) throw new Error(`a bench figure without row=: ${source}`);
  return {
    section: fields.section,
    row: fields.row,
    cell: fields.cell && Number(fields.cell),
    n: Number(fields.n ?? 0),
  };
}

/** The figure the block holds for `source`, or MISSING. */
export function figureFor(block, source) {
  const { section, row, cell, n } = parseSource(source);
  const lines = block.split('\n');
  const from = section === undefined ? 0 : lines.findIndex((line) => line.includes(section));
  if (from < 0) return MISSING;
  const line = lines.slice(from).find((candidate) => candidate.includes(row));
  if (line === undefined) return MISSING;
  const text = (cell === undefined ? line : line.split('|')[cell])?.replaceAll('**', '').trim();
  if (text === undefined) return MISSING;
  // A cell with no number (`—`: no such figure for this row) is quoted as it is.
  return text.match(NUMBER)?.at(n) ?? (cell === undefined ? MISSING : text);
}

/** `text` with every figure set to the block's. */
export function withFigures(text, block) {
  return text.replace(FIGURE, (_, source) => `<!-- bench: ${source} -->${figureFor(block, source)}<!-- /bench -->`);
}

/** Every figure of `text`: its source, what the page says, and what the block says. */
export function figuresOf(text, block) {
  return [...text.matchAll(FIGURE)].map(([, source, quoted]) => ({ source, quoted, block: figureFor(block, source) }));
}

/** Rewrites the figures of every page from bench/README.md's block (a full run does, after the block). */
export function writeDocFigures() {
  const block = resultsBlock();
  for (const page of FIGURE_PAGES) {
    const text = readFileSync(page, 'utf8');
    const updated = withFigures(text, block);
    if (updated !== text) writeFileSync(page, updated);
  }
}
