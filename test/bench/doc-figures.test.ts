// The figures docs/operations.md and docs/postgres.md quote are those of the last full bench run:
// each is marked with the one figure of bench/README.md's results block it is (bench/lib/doc-figures.mjs),
// and a full run rewrites them, so a page that says anything else quotes a stale or hand-made figure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FIGURE_PAGES,
  FigureError,
  MISSING,
  figureFor,
  figuresOf,
  markersOf,
  resultsBlock,
  withFigures,
} from '../../bench/lib/doc-figures.mjs';

const block: string = resultsBlock();

describe.each(FIGURE_PAGES.map((url) => [fileURLToPath(url).split('/').slice(-2).join('/'), url] as const))(
  '%s',
  (_, url) => {
    const page = readFileSync(url, 'utf8');
    const figures = () => figuresOf(page, block);

    it('quotes figures of the bench', () => {
      expect(markersOf(page).length).toBeGreaterThan(5);
    });

    it('names one figure of the block with each marker: one row, a column or place holding a figure', () => {
      const problems = markersOf(page).flatMap(({ source }) => {
        try {
          figureFor(block, source);
          return [];
        } catch (error) {
          return [`${source}: ${(error as Error).message}`];
        }
      });
      expect(problems).toEqual([]);
    });

    it('quotes each as the last full run in bench/README.md has it', () => {
      const stale = figures().filter((figure) => figure.quoted !== figure.block);
      expect(stale).toEqual([]);
    });

    it('quotes only figures the last full run has', () => {
      expect(figures().filter((figure) => figure.block === MISSING)).toEqual([]);
    });
  },
);

describe('a figure', () => {
  const sample = [
    '### Servers',
    '',
    '| server | req/s | vs raw | CPU µs (vs raw) | met |',
    '|---|--:|--:|--:|---|',
    '| ours | 1,000 | **0.50x** | 37.9 (1.09x) | yes |',
    '| ours durable | 500 | 0.25x | — | yes |',
    '',
    '- Details: per round 0.9, 1.1 (paired 1.00x); 12 rounds.',
    '',
    '### Operations',
    '',
    '| server | req/s | vs plain |',
    '|---|--:|--:|',
    '| ours | 2,500 | 0.75x |',
  ].join('\n');

  it("is the cell of the row's column named by its header, bold or not", () => {
    expect(figureFor(sample, 'section="### Servers" row="| ours |" col="vs raw"')).toBe('0.50x');
    expect(figureFor(sample, 'section="### Servers" row="| ours |" col="req/s"')).toBe('1,000');
    expect(figureFor(sample, 'section="### Operations" row="| ours |" col="req/s"')).toBe('2,500');
  });

  it('is the named one of a cell that holds several', () => {
    expect(figureFor(sample, 'section="### Servers" row="| ours |" col="CPU µs (vs raw)" figure=1')).toBe('37.9');
    expect(figureFor(sample, 'section="### Servers" row="| ours |" col="CPU µs (vs raw)" figure=2')).toBe('1.09x');
  });

  it('is, in a line that is not a table row, the figure right after the text named', () => {
    expect(figureFor(sample, 'section="### Servers" row="- Details" after="paired"')).toBe('1.00x');
    expect(figureFor(sample, 'section="### Servers" row="- Details" after="1.00x);"')).toBe('12');
  });

  it('reads as missing where the block has no such section or row, and is rewritten from the block', () => {
    expect(figureFor(sample, 'section="### Production" row="| ours |" col="req/s"')).toBe(MISSING);
    expect(figureFor(sample, 'section="### Servers" row="| theirs |" col="req/s"')).toBe(MISSING);
    const page = 'served <!-- bench: section="### Servers" row="| ours |" col="req/s" -->999<!-- /bench --> req/s';
    expect(withFigures(page, sample)).toBe(
      'served <!-- bench: section="### Servers" row="| ours |" col="req/s" -->1,000<!-- /bench --> req/s',
    );
  });

  it('is an error where its row is in more than one line', () => {
    expect(() => figureFor(sample, 'row="| ours |" col="req/s"')).toThrow(/is in 2 lines/);
    expect(() => figureFor(sample, 'section="### Servers" row="| ours" col="req/s"')).toThrow(FigureError);
  });

  it('is an error where its cell is not a figure', () => {
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |" col="met"')).toThrow(
      /reads "yes", not one figure/,
    );
    expect(() => figureFor(sample, 'section="### Servers" row="| ours durable |" col="CPU µs (vs raw)"')).toThrow(
      /reads "—", not one figure/,
    );
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |" col="CPU µs (vs raw)"')).toThrow(
      /name one with figure=/,
    );
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |" col="CPU µs (vs raw)" figure=3')).toThrow(
      /has no figure 3/,
    );
    expect(() => figureFor(sample, 'section="### Servers" row="- Details" after="rounds"')).toThrow(
      /no figure directly after/,
    );
  });

  it('is an error where it names no one column or place', () => {
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |" col="p99"')).toThrow(/is 0 columns/);
    expect(() => figureFor(sample, 'section="### Servers" row="- Details" col="req/s"')).toThrow(/not a table row/);
    expect(() => figureFor(sample, 'section="### Servers" row="- Details" after="1."')).toThrow(/not once/);
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |"')).toThrow(/one of col= or after=/);
  });

  it('takes no other way of naming it: no "last number of the row"', () => {
    expect(() => figureFor(sample, 'section="### Servers" row="- Details" n=-1')).toThrow(/unknown n=/);
    expect(() => figureFor(sample, 'section="### Servers" row="| ours |" cell=3')).toThrow(/unknown cell=/);
  });
});
