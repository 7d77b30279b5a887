// How names and tags are kept in PostgreSQL `text`, which refuses U+0000 and (being UTF-8) cannot carry
// a lone surrogate, while the service keeps every UTF-16 string exactly. Three escapes, each starting
// with a backslash: `\\` for a backslash, `\0` for U+0000, `\uD800` (four upper-case hex digits) for a
// lone surrogate. Every other character, astral ones included, is stored as itself, so ordinary names
// read and compare in SQL as they are.

/** A backslash, U+0000, or a surrogate that is not half of a pair. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what PostgreSQL text refuses, so it must be found.
const NEEDS_ESCAPE = /[\\\u0000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` as stored: escaped when it holds a backslash, U+0000 or a lone surrogate, else itself. */
export function encodeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x5c) out += '\\\\';
    else if (unit === 0) out += '\\0';
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      out += text[i]! + text[i + 1]!;
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) out += `\\u${unit.toString(16).toUpperCase()}`;
    else out += text[i]!;
  }
  return out;
}

/**
 * The string `stored` stands for. The inverse of {@link encodeText}; a backslash that starts none of the
 * three escapes (a row written by hand) is kept as it is.
 */
export function decodeText(stored: string): string {
  if (!stored.includes('\\')) return stored;
  let out = '';
  for (let i = 0; i < stored.length; i++) {
    const char = stored[i]!;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = stored[i + 1];
    if (next === '\\') {
      out += '\\';
      i++;
    } else if (next === '0') {
      out += '\u0000';
      i++;
    } else if (next === 'u' && /^[Dd][89A-Fa-f][0-9A-Fa-f]{2}$/.test(stored.slice(i + 2, i + 6))) {
      out += String.fromCharCode(Number.parseInt(stored.slice(i + 2, i + 6), 16));
      i += 5;
    } else {
      out += char;
    }
  }
  return out;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
