// The readers of the options whose values take more than a reader of readers.ts: tokens and JWT
// keys, checked by the core's own rules when they are read; CORS origins; the database's connection
// string; an HMAC secret's file. What the server or the store checks when it starts (a base path's
// form, a token file's entries) is refused then.
import { checkAppOption, createTokenSet, type JwtAuthOptions } from '@plant-store/core';
import { applyRule, fileOf, list, type TextReader, type TextsReader } from './readers.js';
import { UsageError } from './usage-error.js';

/**
 * Bearer tokens, or `sha256:<hex>` of one, checked by the core's own rules (a token set made and
 * dropped), never quoted back: the core's message names the rule, never the value, which is a secret.
 */
export function tokens(): TextsReader<string[]> {
  return list((items, source) =>
    applyRule(source, () => {
      if (items.length === 0) throw new TypeError('at least one token is required');
      createTokenSet(items);
      return [...items];
    }),
  );
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

const jsonFile = fileOf<unknown>((bytes, refuse) => {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return refuse('not JSON');
  }
});

/**
 * A JWKS URL, kept for the server to fetch, or a JWK Set file, read now; either checked by the core's
 * rule for `auth.jwt.jwks`.
 */
export function jwks(): TextReader<NonNullable<JwtAuthOptions['jwks']>> {
  return {
    takes: 'text',
    read(value, source) {
      const url = /^https?:\/\//i.test(value);
      const keys = (url ? value : jsonFile.read(value, source)) as NonNullable<JwtAuthOptions['jwks']>;
      return applyRule(url ? source : `${source} ${value}`, () => checkAppOption('auth.jwt.jwks', keys));
    },
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
