// Options shared by the app and createErrorResponse, whose default 40401 and 41301 messages name them.

/** The largest accepted request body by default, in bytes: 1 MiB (the service's rules, server defaults). */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/** `limit` when it is a usable body limit in bytes; a TypeError otherwise. */
export function checkBodyLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw new TypeError('bodyLimit must be a whole number of bytes, 0 or more');
  return limit;
}

/**
 * `''`, `'/'`, `'/api'`, `'/api/'` and `'api'` are accepted; the result is `''` or `/x…` without a
 * trailing slash, spelled as a URL parser spells it (`/café` → `/caf%C3%A9`, `/a/../b` → `/b`): that is
 * the path clients send, and the core compares paths exactly.
 */
export function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return '';
  if (typeof basePath !== 'string' || /[?#\s]/.test(basePath) || basePath.includes('://')) {
    throw new TypeError('basePath must be a path such as "/api" (no scheme, host, query or fragment)');
  }
  // Appended to an origin rather than resolved against one, so `//api` stays a path, not a host.
  let path = new URL(`http://h${basePath.startsWith('/') ? '' : '/'}${basePath}`).pathname;
  while (path.endsWith('/')) path = path.slice(0, -1);
  return path;
}
