// The figures docs/operations.md and docs/postgres.md quote, taken from the results block of
// bench/README.md (the last full run), so that no page quotes another run. A quoted figure is
// written in the page between two comments that name the one figure it is:
//
//   <!-- bench: section="### Operations" row="| `--log` (stderr to a file) |" col="vs plain (paired)" -->1.01x<!-- /bench -->
//   <!-- bench: section="### PostgreSQL" row="- 64 connections, p99 ours" after="paired" -->0.58x<!-- /bench -->
//
// `section`: the heading that opens the search (optional; the search ends at the next heading of
// its level or above); `row`: text that exactly one line of the section contains; then either
// `col`: the header of that table row's column, whose cell must be one figure, or, where the cell
// holds several (`72.6 (1.01x)`), `figure`: which of them (1 = the first); or, for a line that is
// not a table row, `after`: the text the figure directly follows in it. A figure keeps its thousands
// commas, decimals and a trailing `x`. A marker that names no such column, a row that several lines
// contain, or a cell or place that holds no figure is an error, never a guess; a section or row
// the block lacks (a part that has not had a full run) reads MISSING. A full run rewrites every
// such figure, and test/bench/doc-figures.test.ts fails where a page's figure is not the block's.
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

/** A marker that does not name exactly one figure of the block. */
export class FigureError extends Error {
  name = 'FigureError';
}

/** The results block of bench/README.md. */
export function resultsBlock(page = readFileSync(README, 'utf8')) {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error('bench/README.md has no results block');
  return page.slice(start, end);
}

/** The cells of a Markdown table row (`| a | **b** |` → `a`, `b`), trimmed, bold marks removed. */
export const cellsOf = (line) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.replaceAll('**', '').trim());

const isTableLine = (line) => line.trimStart().startsWith('|');
const isSeparator = (line) => /^\|(\s*:?-+:?\s*\|)+$/.test(line.trim());

/**
 * The Markdown tables among `lines`: each with its header's cells and its rows, a row being the
 * line's index in `lines` and its cells.
 * @returns {{ header: string[], rows: { index: number, cells: string[] }[] }[]}
 */
export function tablesOf(lines) {
  const tables = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isTableLine(lines[i]) || !isSeparator(lines[i + 1] ?? '') || isTableLine(lines[i - 1] ?? '')) continue;
    const table = { header: cellsOf(lines[i]), rows: [] };
    for (let j = i + 2; j < lines.length && isTableLine(lines[j]); j++)
      table.rows.push({ index: j, cells: cellsOf(lines[j]) });
    tables.push(table);
  }
  return tables;
}

const headingLevel = (line) => /^(#+) /.exec(line)?.[1].length;

/**
 * Where the section whose heading starts with `heading` lies among `lines`: from its heading to the
 * next heading of its level or above (all the lines when `heading` is undefined), as [start, end);
 * undefined where there is no such heading. Two such headings are an error.
 */
export function sectionRange(lines, heading) {
  if (heading === undefined) return [0, lines.length];
  const starts = lines.flatMap((line, i) => (headingLevel(line) && line.startsWith(heading) ? [i] : []));
  if (starts.length > 1) throw new FigureError(`section="${heading}" opens ${starts.length} headings of the block`);
  const [start] = starts;
  if (start === undefined) return undefined;
  const level = headingLevel(lines[start]);
  const end = lines.findIndex((line, i) => i > start && (headingLevel(line) ?? Infinity) <= level);
  return [start, end < 0 ? lines.length : end];
}

/** The figures written in `text`, in order. */
export const figuresIn = (text) => text.match(NUMBER) ?? [];

/** Whether `text` is one figure and nothing else. */
export const isFigure = (text) => new RegExp(`^${NUMBER.source}$`).test(text);

/** A figure's text as a number: `11,794` → 11794, `0.94x` → 0.94. */
export const figureValue = (text) => Number(text.replaceAll(',', '').replace(/x$/, ''));

/**
 * The figures of a table cell: the cell itself where it is one figure, the `figure`th (1 = the
 * first) of those it holds where `figure` is given; `where` names the cell in an error.
 */
export function figureOfCell(cell, figure, where) {
  if (figure === undefined) {
    if (isFigure(cell)) return cell;
    throw new FigureError(
      `${where} reads "${cell}", not one figure${cell.match(NUMBER) ? ' (name one with figure=)' : ''}`,
    );
  }
  const found = figuresIn(cell)[figure - 1];
  if (found === undefined) throw new FigureError(`${where} reads "${cell}", which has no figure ${figure}`);
  return found;
}

const KEYS = new Set(['section', 'row', 'col', 'figure', 'after']);

/** Reads a figure's source (`section="…" row="…" col="…"`) into its parts. */
function parseSource(source) {
  const fields = {};
  for (const [, key, quoted, bare] of source.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g)) {
    if (!KEYS.has(key)) throw new FigureError(`a bench figure with an unknown ${key}=: ${source}`);
    fields[key] = quoted ?? bare;
  }
  if (fields.row === undefined) throw new FigureError(`a bench figure without row=: ${source}`);
  if ((fields.col === undefined) === (fields.after === undefined))
    throw new FigureError(`a bench figure names its figure with one of col= or after=: ${source}`);
  const figure = fields.figure === undefined ? undefined : Number(fields.figure);
  if (figure !== undefined && !(Number.isInteger(figure) && figure >= 1 && fields.col !== undefined))
    throw new FigureError(`figure= is a cell's figure from 1, with col=: ${source}`);
  return { ...fields, figure };
}

/** The figure the block holds for `source`, or MISSING; a FigureError where it names no one figure. */
export function figureFor(block, source) {
  const { section, row, col, figure, after } = parseSource(source);
  const all = block.split('\n');
  const range = sectionRange(all, section);
  if (range === undefined) return MISSING;
  const lines = all.slice(...range);
  const matches = lines.flatMap((line, i) => (line.includes(row) ? [i] : []));
  if (matches.length > 1) throw new FigureError(`row="${row}" is in ${matches.length} lines: ${source}`);
  const [index] = matches;
  if (index === undefined) return MISSING;
  if (after !== undefined) {
    const line = lines[index];
    const at = line.indexOf(after);
    if (at < 0 || line.indexOf(after, at + 1) >= 0)
      throw new FigureError(`after="${after}" is not once in the line of row="${row}"`);
    const found = new RegExp(`^\\s*(${NUMBER.source})`).exec(line.slice(at + after.length))?.[1];
    if (found === undefined) throw new FigureError(`no figure directly after "${after}" in the line of row="${row}"`);
    return found;
  }
  const table = tablesOf(lines).find((candidate) => candidate.rows.some((r) => r.index === index));
  if (table === undefined) throw new FigureError(`row="${row}" is not a table row, so col= names nothing`);
  const columns = table.header.flatMap((header, i) => (header === col ? [i] : []));
  if (columns.length !== 1)
    throw new FigureError(`col="${col}" is ${columns.length} columns of the table (${table.header.join(' | ')})`);
  const cells = table.rows.find((r) => r.index === index).cells;
  return figureOfCell(cells[columns[0]] ?? '', figure, `col="${col}" of row="${row}"`);
}

/** `text` with every figure set to the block's. */
export function withFigures(text, block) {
  return text.replace(FIGURE, (_, source) => `<!-- bench: ${source} -->${figureFor(block, source)}<!-- /bench -->`);
}

/** Every marked figure of `text`: its source and what the page says. */
export const markersOf = (text) => [...text.matchAll(FIGURE)].map(([, source, quoted]) => ({ source, quoted }));

/** Every figure of `text`: its source, what the page says, and what the block says. */
export function figuresOf(text, block) {
  return markersOf(text).map((marker) => ({ ...marker, block: figureFor(block, marker.source) }));
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
