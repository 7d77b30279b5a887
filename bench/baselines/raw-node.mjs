// The raw node:http baseline: the plant store written by hand, plainly, the way a competent
// developer would without our packages or a framework. It does the same work as the reference
// server (the contract of openapi.yaml): bearer auth in constant time, media type, body limit,
// strict UTF-8 and JSON, NewPlant validation with the exact int64 id read from the raw text, a Map
// store with idempotent replay and 40003, X-Request-Id, and the same JSON answers. It is the
// yardstick the reference server is held to, so it must be neither crippled nor cutting corners.
import { createServer } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;
const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/;
const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="plant-store", error="invalid_token"';

/**
 * Starts the hand-written baseline server. With `insert` (postgres-table.mjs), plants are stored
 * through it instead of the Map: it resolves to undefined for a new plant, else to the stored one.
 * @param {{ port?: number, host?: string, tokens: string[], bodyLimit?: number,
 *   insert?(id: string, name: string, tag?: string): Promise<{ name: string, tag?: string } | undefined> }} options
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function startRawNodeServer({ port = 0, host = '127.0.0.1', tokens, bodyLimit = 1024 * 1024, insert }) {
  const accepted = tokens.map((token) => Buffer.from(token, 'utf8'));
  const plants = new Map();
  const decoder = new TextDecoder('utf-8', { fatal: true });

  function send(res, status, requestId, payload, extra) {
    const body = JSON.stringify(payload);
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
    };
    if (extra) Object.assign(headers, extra);
    res.writeHead(status, headers);
    res.end(body);
  }

  function fail(res, status, requestId, code, message, extra) {
    send(res, status, requestId, { error: code, message }, extra);
  }

  // Every accepted token is compared, and in constant time, so the answer's timing says nothing
  // about which token (or how much of one) matched.
  function tokenAccepted(token) {
    const given = Buffer.from(token, 'utf8');
    let ok = false;
    for (const candidate of accepted) {
      if (candidate.length === given.length && timingSafeEqual(candidate, given)) ok = true;
    }
    return ok;
  }

  // application/json in any case, with at most a charset=utf-8 parameter.
  function isJsonMediaType(value) {
    if (value === undefined) return false;
    const parts = value.split(';');
    if (parts[0].trim().toLowerCase() !== 'application/json') return false;
    for (let i = 1; i < parts.length; i++) {
      const param = parts[i].trim();
      if (param === '') continue;
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') return false;
      const charset = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
      if (charset !== 'utf-8') return false;
    }
    return true;
  }

  function handle(req, res) {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);

    if (path !== '/plants') {
      req.resume();
      return fail(res, 404, requestId, 40401, `no such path: the only operation is POST /plants`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return fail(res, 405, requestId, 40501, `method ${req.method} is not allowed on /plants; use POST`, {
        allow: 'POST',
      });
    }

    // RFC 6750 §2.1, with the scheme name case-insensitive (RFC 9110 §11.1); auth is judged before
    // the body, so a request that fails it has no effect and costs no body read.
    const authorization = req.headers.authorization;
    const match = authorization === undefined ? null : /^bearer +(\S+) *$/i.exec(authorization);
    if (match === null) {
      req.resume();
      return fail(res, 401, requestId, 40101, 'missing credentials: send Authorization: Bearer <token>', {
        'www-authenticate': CHALLENGE,
      });
    }
    if (!tokenAccepted(match[1])) {
      req.resume();
      return fail(res, 401, requestId, 40102, 'the bearer token is not accepted', {
        'www-authenticate': INVALID_TOKEN_CHALLENGE,
      });
    }
    if (!isJsonMediaType(req.headers['content-type'])) {
      req.resume();
      return fail(res, 415, requestId, 41501, 'the body must be application/json');
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > bodyLimit) {
      // Answer before reading: a declared oversize body is refused without spending on it.
      res.shouldKeepAlive = false;
      return fail(res, 413, requestId, 41301, `the body must be at most ${bodyLimit} bytes`, { connection: 'close' });
    }

    const chunks = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk) => {
      if (over) return;
      size += chunk.length;
      if (size > bodyLimit) {
        over = true;
        res.shouldKeepAlive = false;
        fail(res, 413, requestId, 41301, `the body must be at most ${bodyLimit} bytes`, { connection: 'close' });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (over) return;
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      createPlant(res, requestId, bytes);
    });
  }

  function createPlant(res, requestId, bytes) {
    let text;
    let value;
    try {
      text = decoder.decode(bytes);
      value = JSON.parse(text);
    } catch {
      return fail(res, 400, requestId, 40001, 'the body is not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return fail(res, 400, requestId, 40002, 'the body must be a JSON object (a NewPlant)');
    }
    if (!('id' in value)) return fail(res, 400, requestId, 40002, 'id is required');
    const id = exactId(text, value.id);
    if (id === undefined) {
      return fail(
        res,
        400,
        requestId,
        40002,
        'id must be an integer between -9223372036854775808 and 9223372036854775807',
      );
    }
    const { name, tag } = value;
    if (typeof name !== 'string') return fail(res, 400, requestId, 40002, 'name is required and must be a string');
    if (tag !== undefined && typeof tag !== 'string') return fail(res, 400, requestId, 40002, 'tag must be a string');

    if (insert !== undefined) {
      insert(id, name, tag).then(
        (existing) => answer(res, requestId, id, name, tag, existing),
        () => fail(res, 503, requestId, 50301, 'the store is unavailable; retry', { 'retry-after': '1' }),
      );
      return;
    }
    const existing = plants.get(id);
    if (existing === undefined) plants.set(id, tag === undefined ? { name } : { name, tag });
    answer(res, requestId, id, name, tag, existing);
  }

  function answer(res, requestId, id, name, tag, existing) {
    if (existing !== undefined && (existing.name !== name || existing.tag !== tag)) {
      return fail(res, 400, requestId, 40003, `id ${id} is stored already with a different name or tag`);
    }
    send(res, 200, requestId, tag === undefined ? { name } : { name, tag });
  }

  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, handle);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${address.address}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * The id's exact value as a canonical decimal string (the Map key), or undefined when it is not an
 * int64. JSON.parse has already rounded `parsed` to a double, so the number's own text is found in
 * the raw body and judged instead: 2^53+1 and 1.00000000000000000001 must not pass as neighbours.
 */
function exactId(text, parsed) {
  if (typeof parsed !== 'number') return undefined;
  const raw = rawTopLevelValue(text, 'id');
  if (raw === undefined || !INTEGER_TEXT.test(raw)) return undefined;
  const id = BigInt(raw);
  if (id < INT64_MIN || id > INT64_MAX) return undefined;
  return id.toString();
}

/**
 * The raw text of the last member `key` of the top-level object in `text` (JSON.parse keeps the
 * last of duplicate keys, so this must too). `text` is known to be valid JSON, which keeps the
 * scanner small: it only needs to skip strings and nested values.
 */
function rawTopLevelValue(text, key) {
  let i = skipSpace(text, 0) + 1; // past '{'
  let found;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === 125 /* } */) return found;
    const keyEnd = skipString(text, i);
    const rawKey = text.slice(i + 1, keyEnd - 1);
    const name = rawKey.includes('\\') ? JSON.parse(text.slice(i, keyEnd)) : rawKey;
    i = skipSpace(text, keyEnd) + 1; // past ':'
    i = skipSpace(text, i);
    const valueEnd = skipValue(text, i);
    if (name === key) found = text.slice(i, valueEnd);
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) === 44 /* , */) i++;
  }
}

function skipSpace(text, i) {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

function skipString(text, i) {
  for (i++; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) return i + 1;
  }
}

function skipValue(text, i) {
  const c = text.charCodeAt(i);
  if (c === 34) return skipString(text, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (;;) {
      const d = text.charCodeAt(i);
      if (d === 34) {
        i = skipString(text, i);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
  }
  // A number or a literal: it runs to the next delimiter.
  for (;;) {
    const d = text.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9 || Number.isNaN(d)) return i;
    i++;
  }
}
