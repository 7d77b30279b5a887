// Types of doc-figures.mjs: the figures docs pages quote from bench/README.md's results block.

/** The pages whose figures come from the results block. */
export const FIGURE_PAGES: readonly URL[];
/** What a page shows for a figure the last full run did not produce. */
export const MISSING: string;
/** The results block of bench/README.md (or of `page`). */
export function resultsBlock(page?: string): string;
/** The figure `source` names in `block`, or MISSING. */
export function figureFor(block: string, source: string): string;
/** `text` with every marked figure set to the block's. */
export function withFigures(text: string, block: string): string;
/** Every marked figure of `text`: where it comes from, what the page says, what the block says. */
export function figuresOf(text: string, block: string): Array<{ source: string; quoted: string; block: string }>;
/** Rewrites the figures of every page in FIGURE_PAGES from bench/README.md's results block. */
export function writeDocFigures(): void;
