// Options shared by the app and createErrorResponse, whose default 40401 and 41301 messages name them.

/** `limit` when it is a usable body limit in bytes; a TypeError otherwise. */
export function checkBodyLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError('bodyLimit must be a whole number of bytes, 0 or more');
  return limit;
}

/** `''`, `'/'`, `'/api'`, `'/api/'` and `'api'` are accepted; the result is `''` or `/x…` without a trailing slash. */
export function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return '';
  if (typeof basePath !== 'string' || /[?#\s]/.test(basePath) || basePath.includes('://')) {
    throw new TypeError('basePath must be a path such as "/api" (no scheme, host, query or fragment)');
  }
  let path = basePath.startsWith('/') ? basePath : '/' + basePath;
  while (path.endsWith('/')) path = path.slice(0, -1);
  return path;
}
