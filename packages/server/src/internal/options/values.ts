// The readers of the options whose values the CLI checks itself: tokens, CORS origins, the database's
// connection string and the JWT keys. What the server or the store checks (a base path's form, a
// token file's entries) is theirs, refused when they start.
import { createTokenSet } from '@plant-store/core';
import { type TextReader, fileOf, type TextsReader, list } from './readers.js';
import { UsageError } from './usage-error.js';

/**
 * Bearer tokens, or `sha256:<hex>` of one, checked by the core's own rules (a token set made and
 * dropped), never quoted back.
 */
export function tokens(): TextsReader<string[]> {
  return list((items, source) => {
    try {
      if (items.length === 0) throw new TypeError('at least one token is required');
      createTokenSet(items);
    } catch (error) {
      // The core's message names the rule, never the value: it is a secret, and this may reach a log.
      throw new UsageError(`${source}: ${(error as Error).message}`);
    }
    return [...items];
  });
}

/** Browser origins, or `*` among them for every origin. Their form is the server's to check. */
export function origins(): TextsReader<string[] | '*'> {
  return list((items, source) => {
    if (items.length === 0 || items.includes('')) {
      throw new UsageError(`${source} needs an origin such as https://app.example, or *`);
    }
    return items.includes('*') ? '*' : [...items];
  });
}

/**
 * A PostgreSQL connection string: a `postgres://` URL, or libpq's keyword=value form. The URL is never
 * quoted back: it may hold a password, and this message may end up in a log.
 */
export function connectionString(): TextReader<string> {
  return {
    takes: 'text',
    read(url, source) {
      // A URL's host list (db1:5432,db2:5433, no WHATWG URL host) and the keyword=value form are the
      // store's to check: a URL is checked here with its first host.
      const firstHost = url.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?[^,/?#]*)[^/?#]*/i, '$1');
      const keywordValue = /^\s*[A-Za-z_]\w*\s*=/.test(url);
      if (!keywordValue && (!/^postgres(ql)?:\/\//i.test(url) || !URL.canParse(firstHost))) {
        throw new UsageError(`${source} must be a URL such as postgres://user:password@host:5432/database`);
      }
      return url;
    },
  };
}

const jwksFile = fileOf<{ keys: object[] }>((bytes, refuse) => {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    refuse('not JSON');
  }
  if (typeof json !== 'object' || json === null || !Array.isArray((json as { keys?: unknown }).keys)) {
    refuse('not a JWK Set (an object with a "keys" list)');
  }
  return json as { keys: object[] };
});

/** A JWKS URL, kept for the server to fetch, or a JWK Set file, read now. */
export function jwks(): TextReader<string | { keys: object[] }> {
  return {
    takes: 'text',
    read: (value, source) => (/^https?:\/\//i.test(value) ? value : jwksFile.read(value, source)),
  };
}

/** An HMAC secret's file, read now, without the trailing newline an editor leaves. */
export function secretFile(): TextReader<Uint8Array> {
  return fileOf((bytes) => {
    let end = bytes.length;
    while (end > 0 && (bytes[end - 1] === 10 || bytes[end - 1] === 13)) end--;
    return new Uint8Array(bytes.subarray(0, end));
  });
}
