// Types of published-pages.mjs: the Markdown pages the project publishes.

/** The repository's root, with a trailing slash. */
export const root: string;
/** Every published page, by its path from the repository's root. */
export function publishedPages(): string[];
