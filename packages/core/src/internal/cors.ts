// Cross-origin access (Fetch standard, CORS protocol) for browser apps on other origins.
import type { CorsOptions } from '../app-types.js';

/** The request headers a browser app needs to send: the bearer token, the JSON body, its request id. */
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';
/** The response headers a browser app may read beyond the safelisted ones. */
export const CORS_EXPOSE_HEADERS = 'X-Request-Id, WWW-Authenticate, Retry-After';
/** How long a browser may cache a preflight, in seconds, unless `CorsOptions.maxAge` says otherwise. */
export const DEFAULT_CORS_MAX_AGE = 600;

/** Decides which origins are allowed. */
export function createOriginCheck(options: CorsOptions): (origin: string) => boolean {
  const { origins } = options;
  if (origins === '*') return () => true;
  if (!Array.isArray(origins)) throw new TypeError('cors.origins must be a list of origins or "*"');
  for (const o of origins) {
    // As browsers serialize an origin: scheme, lower-case host, port only when not the default.
    // Anything else (no scheme, a path, upper case) could never equal an `Origin` header.
    if (typeof o !== 'string' || !isSerializedOrigin(o)) {
      throw new TypeError(
        `cors.origins must hold origins as browsers send them, e.g. "https://app.example" (scheme and host, lower case, no path, no trailing slash); got ${JSON.stringify(o)}`,
      );
    }
  }
  // Exact comparison: browsers serialize the origin (scheme, host, port) canonically, and a prefix or
  // suffix match would let `https://app.example.evil` in.
  const set = new Set(origins);
  return (origin) => set.has(origin);
}

function isSerializedOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
