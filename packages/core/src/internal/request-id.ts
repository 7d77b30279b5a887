// X-Request-Id handling (the service's rules: every response carries one, the caller's when it sent a sane one).

/** 1 for each byte of `A-Z a-z 0-9 - _ . : /`, the characters a caller's request id may use. */
const SANE = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  const allowed = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/';
  for (let i = 0; i < allowed.length; i++) table[allowed.charCodeAt(i)] = 1;
  return table;
})();

/**
 * The caller's id when it is 1 to 128 sane characters, else a fresh one. The character set keeps
 * log lines and response headers free of injected separators, quotes and control characters.
 */
export function requestIdOf(value: string | null): string {
  if (value !== null && value.length > 0 && value.length <= 128) {
    let ok = 1;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c >= 128 || SANE[c] === 0) {
        ok = 0;
        break;
      }
    }
    if (ok === 1) return value;
  }
  return generateRequestId();
}

const HEX = '0123456789abcdef';

/**
 * A random UUID (v4). `crypto.randomUUID` only exists in secure contexts: a browser page served over
 * plain http from a non-localhost origin (where the MSW mocks may run) has `getRandomValues` only.
 */
export function generateRequestId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40; // RFC 9562 §5.4: version 4
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 9562 §4.1: variant 10
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += '-';
    out += HEX[b[i]! >> 4]! + HEX[b[i]! & 15]!;
  }
  return out;
}
