// Types of doc-figures.mjs: the figures docs pages quote from bench/README.md's results block.

/** The pages whose figures come from the results block. */
export const FIGURE_PAGES: readonly URL[];
/** What a page shows for a figure the last full run did not produce. */
export const MISSING: string;
/** A marker that does not name exactly one figure of the block. */
export class FigureError extends Error {}
/** The results block of bench/README.md (or of `page`). */
export function resultsBlock(page?: string): string;
/** The cells of a Markdown table row, trimmed, bold marks removed. */
export function cellsOf(line: string): string[];
/** The Markdown tables among `lines`: each header's cells, and each row's index in `lines` and cells. */
export function tablesOf(lines: string[]): Array<{ header: string[]; rows: Array<{ index: number; cells: string[] }> }>;
/** Where the section that `heading` opens lies among `lines`, as [start, end); undefined where there is none. */
export function sectionRange(lines: string[], heading: string | undefined): [number, number] | undefined;
/** The figures written in `text`, in order. */
export function figuresIn(text: string): string[];
/** Whether `text` is one figure and nothing else. */
export function isFigure(text: string): boolean;
/** A figure's text as a number. */
export function figureValue(text: string): number;
/** The cell's one figure, or its `figure`th (from 1); a FigureError naming `where` otherwise. */
export function figureOfCell(cell: string, figure: number | undefined, where: string): string;
/** The figure `source` names in `block`, MISSING where the block lacks its section or row; a FigureError otherwise. */
export function figureFor(block: string, source: string): string;
/** `text` with every marked figure set to the block's. */
export function withFigures(text: string, block: string): string;
/** Every marked figure of `text`: where it comes from and what the page says. */
export function markersOf(text: string): Array<{ source: string; quoted: string }>;
/** Every marked figure of `text`: where it comes from, what the page says, what the block says. */
export function figuresOf(text: string, block: string): Array<{ source: string; quoted: string; block: string }>;
/** Rewrites the figures of every page in FIGURE_PAGES from bench/README.md's results block. */
export function writeDocFigures(): void;
