import { matchRequestUrl } from 'msw';

/** A handler set's base URL, split into what MSW matches on and what the core routes on. */
export interface ResolvedBaseUrl {
  /** The URL handlers are registered under, without a trailing slash (`http://h:1/api`, `/api`, `""`). */
  readonly match: string;
  /** `match` as an MSW path pattern: the characters MSW reads as pattern syntax escaped. */
  readonly pattern: string;
  /** The path prefix the core strips before `/plants`; `undefined` when there is none. */
  readonly basePath: string | undefined;
}

/**
 * Splits `baseUrl` into MSW's match prefix and the core's base path. Absolute URLs keep their origin
 * (MSW then only answers that origin); a relative `/api` is resolved by MSW against the page's
 * location, which is what a same-origin browser app wants.
 */
export function resolveBaseUrl(baseUrl: string): ResolvedBaseUrl {
  const absolute = /^[a-z][a-z\d+.-]*:\/\//i.test(baseUrl);
  if (!absolute && !baseUrl.startsWith('/')) {
    throw new TypeError(`baseUrl must be an absolute URL or a path starting with "/", got "${baseUrl}"`);
  }
  const url = new URL(baseUrl, 'http://relative.invalid');
  if (url.search !== '' || url.hash !== '') {
    throw new TypeError(`baseUrl must not carry a query or a fragment, got "${baseUrl}"`);
  }
  // The core compares paths byte for byte, so both sides must agree on one spelling: no trailing slash.
  const path = url.pathname.replace(/\/+$/, '');
  // MSW reads a handler's URL as a path pattern (msw 2: path-to-regexp 6; msw 3: its own matcher).
  // `*` is a wildcard there whatever precedes it, so it cannot be matched literally; `( ) +` can,
  // escaped. A `:` needs the spelling this msw reads as a literal colon (see literalColon). (`{ }`, `?`
  // and spaces never get here: the URL parser percent-encodes them or they start a query.)
  if (path.includes('*')) {
    throw new TypeError(`baseUrl must not contain "*" in its path (MSW reads it as a wildcard), got "${baseUrl}"`);
  }
  const match = absolute ? `${url.origin}${path}` : path;
  const pattern = (absolute ? url.origin : '') + path.replace(/[()+]/g, '\\$&').replaceAll(':', literalColon());
  return { match, pattern, basePath: path === '' ? undefined : path };
}

/**
 * A literal `:` in this msw's path patterns. msw 2 escapes a `:` before digits itself (for a port), so
 * a `\:` there would be escaped twice: the group `(:)` is the literal. msw 3's matcher has no groups
 * (`(` is a literal character) and reads `\:`. The installed matcher is asked which one it reads.
 */
function literalColon(): string {
  return matchRequestUrl(new URL('http://x.invalid/a:b'), 'http://x.invalid/a(:)b').matches ? '(:)' : '\\:';
}
