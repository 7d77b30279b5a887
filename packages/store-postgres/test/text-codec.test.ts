// The representation of names and tags in PostgreSQL text: lossless for every UTF-16 string, readable
// for ordinary ones, and never a U+0000 or a lone surrogate in what is sent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeText, encodeText } from '../src/internal/text-codec.js';

/** Any UTF-16 text, lone surrogates and the escape characters made likely. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.constantFrom('\\', '0', 'u', 'D', '8', '\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '🌱'),
  ),
  maxLength: 40,
});

describe('text codec', () => {
  it('gives back every string it encoded, and encodes none with U+0000 or a lone surrogate (property)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const stored = encodeText(text);
        expect(decodeText(stored)).toBe(text);
        expect(stored.includes('\u0000')).toBe(false);
        expect(Buffer.from(stored, 'utf8').toString('utf8')).toBe(stored);
      }),
      { numRuns: 2_000 },
    );
  });

  it('stores ordinary names, astral characters included, as themselves', () => {
    for (const text of [
      'Fern',
      '',
      ' ',
      'Ficus "lyrata"',
      "O'Neil",
      '🌱 Monstera',
      'e\u0301',
      '\u{10FFFF}',
      'x'.repeat(1000),
    ]) {
      expect(encodeText(text)).toBe(text);
    }
  });

  it('escapes a backslash, U+0000 and each lone surrogate, and nothing else', () => {
    expect(encodeText('C:\\plants')).toBe('C:\\\\plants');
    expect(encodeText('a\u0000b')).toBe('a\\0b');
    expect(encodeText('\uD800')).toBe('\\uD800');
    expect(encodeText('x\uDC00\uD800y')).toBe('x\\uDC00\\uD800y');
    expect(encodeText('\uD83C\uDF31\uD83C')).toBe('\uD83C\uDF31\\uD83C');
  });

  it('keeps a backslash that starts no escape, as in a row written by hand', () => {
    expect(decodeText('C:\\temp')).toBe('C:\\temp');
    expect(decodeText('\\u0041 and \\uD7FF')).toBe('\\u0041 and \\uD7FF');
    expect(decodeText('end\\')).toBe('end\\');
  });
});
