// The charts in bench/charts/ are bench/README.md's results block drawn (bench/lib/charts.mjs): a
// block edited by hand, a drawing changed, or a chart not written since, fails here, naming the
// command that draws them again. Then the parser and the drawing on small blocks of their own.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CHARTS_COMMAND,
  CHARTS_DIR,
  type ChartSpec,
  chartRows,
  placeCharts,
  renderChart,
  renderCharts,
} from '../../bench/lib/charts.mjs';
import { resultsBlock } from '../../bench/lib/doc-figures.mjs';

describe('the charts of bench/README.md', () => {
  const block = resultsBlock();
  const charts = renderCharts(block);
  const stale = `stale: run \`${CHARTS_COMMAND}\` to draw them again from the results block`;

  it('are drawn from the figures of the block, every one', () => {
    expect(charts.filter((chart) => chart.error !== undefined)).toEqual([]);
  });

  it('are shown in the block, each after the table it draws', () => {
    expect(placeCharts(block), stale).toBe(block);
    for (const chart of charts) expect(block).toContain(`](charts/${chart.file})`);
  });

  it.each(charts.map((chart) => [chart.file, chart] as const))('bench/charts/%s is the block drawn', (file, chart) => {
    let written: string | undefined;
    try {
      written = readFileSync(new URL(file, CHARTS_DIR), 'utf8');
    } catch {
      written = undefined;
    }
    expect(written, stale).toBe(chart.svg);
  });

  it('are all that bench/charts/ holds', () => {
    const files = readdirSync(CHARTS_DIR).filter((name) => name.endsWith('.svg'));
    expect(files.sort(), stale).toEqual(charts.map((chart) => chart.file).sort());
  });
});

describe('a chart', () => {
  const sample = (rows: string[]) =>
    [
      '### Production',
      '',
      '| a vs b | a / b req/s | per-round range | target |',
      '|---|--:|--:|---|',
      ...rows,
      '',
      '- a line after the table',
    ].join('\n');
  const block = sample([
    '| ours `--log` vs ours bare | **0.91x** | 0.85-0.94 | ≥ 0.90x |',
    '| ours vs fastify 5 (bench/baselines/fastify.mjs) | 2.01x | 1.58-2.78 | reported |',
  ]);
  const spec: ChartSpec = {
    file: 'sample.svg',
    title: 'Sample: a & b <head to head>',
    note: 'a note',
    ratio: true,
    series: [
      { section: '### Production', value: 'a / b req/s', label: 'a vs b', range: 'per-round range', target: 'target' },
    ],
  };

  it("reads each row's value, range and target, and a label without its file", () => {
    expect(chartRows(block, spec)).toEqual({
      bars: [
        {
          group: undefined,
          label: 'ours --log vs ours bare',
          text: '0.91x',
          value: 0.91,
          range: [0.85, 0.94],
          target: 0.9,
        },
        {
          group: undefined,
          label: 'ours vs fastify 5',
          text: '2.01x',
          value: 2.01,
          range: [1.58, 2.78],
          target: undefined,
        },
      ],
      end: 6,
    });
  });

  it('is an accessible SVG of bars with their values, a title and a line at 1.00x', () => {
    const { svg, error } = renderChart(block, spec);
    expect(error).toBeUndefined();
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" [^>]*role="img" aria-label="Sample: a &amp; b &lt;head to head&gt;">/,
    );
    expect(svg).toContain('<title>Sample: a &amp; b &lt;head to head&gt;</title>');
    expect(svg).toContain('<desc>ours --log vs ours bare: 0.91x; ours vs fastify 5: 2.01x</desc>');
    expect(svg.match(/<rect [^>]*height="14"/g)).toHaveLength(2);
    expect(svg).toContain('>1.00x</text>');
    expect(svg).toContain('>2.01x</text>');
    expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)|@import|<script/);
  });

  it('is the same bytes for the same block', () => {
    expect(renderChart(block, spec).svg).toBe(renderChart(`${block}\n`, spec).svg);
  });

  it('draws no bar for a row without a figure, and says so', () => {
    const { svg, error } = renderChart(
      sample(['| ours vs b | — | — | — |', '| ours vs c | pending: refused | | |']),
      spec,
    );
    expect(error).toBeUndefined();
    expect(svg.match(/<rect [^>]*height="14"/g)).toBeNull();
    expect(svg).toContain('>no figure</text>');
    expect(svg).toContain('>no figure: pending: refused</text>');
  });

  it('scales to a huge ratio, keeping every bar inside the plot and the line at 1.00x', () => {
    const { svg } = renderChart(sample(['| ours vs b | 1.00x | — | — |', '| ours vs c | 123,456.78x | — | — |']), spec);
    const widths = [...svg.matchAll(/<rect [^>]*width="([\d.]+)" height="14"/g)].map((match) => Number(match[1]));
    expect(widths).toHaveLength(2);
    expect(Math.max(...widths)).toBeLessThanOrEqual(420);
    expect(widths[0]).toBeGreaterThan(0);
    expect(svg).toContain('>1.00x</text>');
    expect(svg).toContain('>123,456.78x</text>');
  });

  it('names the problem, and draws nothing else, for a negative figure', () => {
    const { svg, error } = renderChart(sample(['| ours vs b | -0.50x | — | — |']), spec);
    expect(error).toBe('"a / b req/s" of ours vs b is negative (-0.50x): a bar cannot show it');
    expect(svg).toContain(
      '>Not drawn: &quot;a / b req/s&quot; of ours vs b is negative (-0.50x): a bar cannot show it</text>',
    );
    expect(svg).not.toContain('height="14"');
  });

  it('names the problem for a missing table or section', () => {
    expect(renderChart(block.replace('| target |', '| goal |'), spec).error).toBe(
      'the results block has 0 tables under "### Production" with the columns "a vs b", "a / b req/s", "per-round range", "target"',
    );
    expect(renderChart('### Servers', spec).error).toBe('the results block has no section "### Production"');
    expect(() => chartRows('### Servers', spec)).toThrow(/no section "### Production"/);
  });

  it('places each image after its table once, whatever images the block held before', () => {
    const placed = placeCharts(block.replace('### Production', '### Production: logs, metrics and JWTs on'));
    expect(placed.match(/!\[[^\]]*\]\(charts\/production\.svg\)/g)).toHaveLength(1);
    expect(placed).toContain('| reported |\n\n![Production configuration');
    expect(placeCharts(placed)).toBe(placed);
    const moved = placed.replace(/\n\n(!\[.*\]\(charts\/production\.svg\))/, '').concat('\n\n![old](charts/gone.svg)');
    expect(placeCharts(moved)).toBe(placed);
  });
});
