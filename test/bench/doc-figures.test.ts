// The figures docs/operations.md and docs/postgres.md quote are those of the last full bench run:
// each is marked with where it comes from in bench/README.md's results block (bench/lib/doc-figures.mjs),
// and a full run rewrites them, so a page that says anything else quotes a stale or hand-made figure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FIGURE_PAGES,
  MISSING,
  figureFor,
  figuresOf,
  resultsBlock,
  withFigures,
} from '../../bench/lib/doc-figures.mjs';

const block: string = resultsBlock();

describe.each(FIGURE_PAGES.map((url) => [fileURLToPath(url).split('/').slice(-2).join('/'), url] as const))(
  '%s',
  (_, url) => {
    const figures: Array<{ source: string; quoted: string; block: string }> = figuresOf(
      readFileSync(url, 'utf8'),
      block,
    );

    it('quotes figures of the bench', () => {
      expect(figures.length).toBeGreaterThan(5);
    });

    it('quotes each as the last full run in bench/README.md has it', () => {
      const stale = figures.filter((figure) => figure.quoted !== figure.block);
      expect(stale).toEqual([]);
    });
  },
);

describe('a figure', () => {
  const sample = [
    '### Servers',
    '| ours | 16 | 1,000 | **0.50x** |',
    '- Details: per round 0.9, 1.1 (paired 1.00x).',
    '### Operations',
    '| ours | 16 | 2,500 | 0.75x | — |',
  ].join('\n');

  it('is the numbered cell of the first matching row after its section, bold or not', () => {
    expect(figureFor(sample, 'row="| ours |" cell=4')).toBe('0.50x');
    expect(figureFor(sample, 'section="### Operations" row="| ours |" cell=3')).toBe('2,500');
    expect(figureFor(sample, 'section="### Operations" row="| ours |" cell=5')).toBe('—');
  });

  it('counts numbers from the end of a line with a negative n', () => {
    expect(figureFor(sample, 'row="- Details" n=-1')).toBe('1.00x');
    expect(figureFor(sample, 'row="- Details" n=1')).toBe('1.1');
  });

  it('reads as missing where the block has no such row, and is rewritten from the block', () => {
    expect(figureFor(sample, 'section="### Production" row="| ours |" cell=3')).toBe(MISSING);
    const page = 'served <!-- bench: row="| ours |" cell=3 -->999<!-- /bench --> req/s';
    expect(withFigures(page, sample)).toBe('served <!-- bench: row="| ours |" cell=3 -->1,000<!-- /bench --> req/s');
  });
});
