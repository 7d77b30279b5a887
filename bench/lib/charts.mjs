// The results block of bench/README.md drawn: one SVG per chart in bench/charts/, each a pure
// function of the block's tables (the same tables lib/doc-figures.mjs reads figures from), and a
// Markdown image of each placed in the block after the last table it draws. Plain hand-made SVG:
// horizontal bars with their labels and values, a title, a dashed line at 1.00x where the values
// are ratios, whiskers for a per-round range and ticks for a target where the table has them; no
// fonts, no scripts, nothing fetched. A full run (run.mjs) and `npm run charts -w bench` write them;
// test/bench/charts.test.ts fails where the files are not what the block draws.
//
// What a chart cannot draw is defined: a cell that is not a figure (`—`, a pending part) draws no
// bar and says so; a table the block lacks, or a negative or unreadable figure, turns the whole
// chart into one that names the problem, and renderCharts reports it.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { FigureError, figuresIn, figureValue, isFigure, resultsBlock, sectionRange, tablesOf } from './doc-figures.mjs';
import { README } from './report.mjs';

export const CHARTS_DIR = new URL('../charts/', import.meta.url);
/** The command that redraws the charts from the block, from the repository's root. */
export const CHARTS_COMMAND = 'npm run charts -w bench';

/** A chart's data that cannot be drawn as it is. */
export class ChartError extends Error {
  name = 'ChartError';
}

const RANGE_NOTE = 'bars: the median of paired rounds; whiskers: the per-round range';

/**
 * The charts. Each series is one table of a section, found by the columns it names: `value` (the
 * bars), `label` (each bar's name), and optionally `groupBy` (a column whose value heads a group of
 * bars, as `groupText` words it), `range` (a `lo-hi` column), `target` (a `≥ 0.90x` column);
 * `heading` heads the series' bars instead of `groupBy`. `ours` picks the bars of the plant store's
 * own code by their label (by default, a label or group that starts with `ours`), drawn in its colour.
 */
const CHARTS = [
  {
    file: 'servers-head-to-head.svg',
    title: 'Servers head to head: req/s of a over b, sharing one core',
    note: `${RANGE_NOTE}; the control is raw node:http against a copy of itself`,
    ratio: true,
    series: [
      {
        section: '#### Head to head',
        value: 'a / b req/s',
        label: 'workload',
        groupBy: 'a vs b',
        groupText: (cell) => shortName(cell),
        range: 'per-round range',
      },
    ],
  },
  {
    file: 'servers-one-at-a-time.svg',
    title: 'Servers one at a time: req/s against raw node:http',
    note: 'each server alone on its core, its median round; 1.00x is raw node:http',
    ratio: true,
    series: [{ section: '### Servers', value: 'vs raw, one at a time', label: 'server', groupBy: 'workload' }],
  },
  {
    file: 'production.svg',
    title: 'Production configuration: req/s of a over b, head to head',
    note: `${RANGE_NOTE}; ticks: the target`,
    ratio: true,
    series: [
      { section: '### Production', value: 'a / b req/s', label: 'a vs b', range: 'per-round range', target: 'target' },
    ],
  },
  {
    file: 'postgres.svg',
    title: 'PostgreSQL: unique creates per second on one database',
    note: 'the statement-per-request servers send an INSERT per create; pgbench runs the same insert',
    series: [
      {
        section: '### PostgreSQL',
        value: 'creates/s',
        label: 'contender',
        groupBy: 'connections',
        groupText: (cell) => `${cell} connections`,
      },
    ],
  },
  {
    file: 'postgres-network.svg',
    title: 'PostgreSQL across a network: creates per second at 64 connections',
    note: 'a TCP proxy between the servers and PostgreSQL delays every chunk half the round trip each way',
    series: [
      {
        section: '#### Across a network',
        value: 'creates/s',
        label: 'contender',
        groupBy: 'round trip ms: asked (measured)',
        groupText: (cell) => {
          const [asked, measured] = figuresIn(cell);
          return `round trip ${asked ?? '?'} ms asked (${measured ?? '?'} ms measured)`;
        },
      },
    ],
  },
  {
    file: 'ops.svg',
    title: 'Operations: metrics, logs and workers against the plain server',
    note: 'ratios within rounds, paired; the servers measured in turn',
    ratio: true,
    ours: /^/,
    series: [
      {
        section: '### Operations',
        value: 'vs plain (paired)',
        label: 'server',
        heading: 'in memory, 16 connections: req/s',
      },
      {
        section: '### Operations',
        value: 'vs `--workers 1` (paired)',
        label: 'server',
        heading: 'on PostgreSQL, 64 connections, nothing pinned: creates/s',
      },
    ],
  },
  {
    file: 'client.svg',
    title: 'Client: a create against raw fetch',
    note: '1.00x is the same request written by hand with fetch',
    ratio: true,
    ours: /^createPlant/,
    series: [
      { section: '### Client', value: 'vs raw fetch, wall', label: 'contender', heading: 'wall time per call' },
      { section: '### Client', value: 'vs raw fetch', label: 'contender', heading: 'instructions per call (valgrind)' },
    ],
  },
  {
    file: 'msw.svg',
    title: 'Mocks: a create through @plant-store/msw against a trivial handler',
    note: 'wall time per call; 1.00x is a trivial MSW handler returning the same JSON',
    ratio: true,
    ours: /^@plant-store\/msw/,
    series: [{ section: '### Mocks', value: 'vs trivial handler, wall', label: 'contender' }],
  },
];

/** A contender's name as a bar's label: without the file it is in, `ours` for the server. */
const shortName = (name) =>
  name
    .replace(/\s*\((?:bench|test)\/[^)]*\)/g, '')
    .replaceAll('@plant-store/server', 'ours')
    .replaceAll('@plant-store/store-file', 'store-file')
    .replaceAll('`', '');

/** The one table of `lines` under `section` with every column of `columns`, and where it lies. */
function tableFor(lines, section, columns) {
  const range = sectionRange(lines, section);
  if (range === undefined) throw new ChartError(`the results block has no section "${section}"`);
  const tables = tablesOf(lines.slice(...range)).filter((t) => columns.every((c) => t.header.includes(c)));
  const where = `under "${section}" with the columns ${columns.map((c) => `"${c}"`).join(', ')}`;
  if (tables.length !== 1) throw new ChartError(`the results block has ${tables.length} tables ${where}`);
  const [table] = tables;
  if (table.rows.length === 0) throw new ChartError(`the table ${where} has no rows`);
  return { ...table, end: range[0] + table.rows.at(-1).index + 1 };
}

/** A cell's figure as a bar's value: undefined where it is none (`—`, a pending row), an error where negative. */
function barValue(cell, where) {
  if (/^[-−]\s*\d/.test(cell)) throw new ChartError(`${where} is negative (${cell}): a bar cannot show it`);
  if (!isFigure(cell)) return undefined;
  const value = figureValue(cell);
  if (!Number.isFinite(value)) throw new ChartError(`${where} is not a finite number (${cell})`);
  return value;
}

/**
 * The bars `spec` draws from `block`, in the order of its tables, with the line of the block after
 * which its image goes; a ChartError where a table is missing or a figure cannot be drawn.
 */
export function chartRows(block, spec) {
  const lines = block.split('\n');
  const bars = [];
  let end = 0;
  for (const series of spec.series) {
    const columns = [series.label, series.value, series.groupBy, series.range, series.target].filter(Boolean);
    const table = tableFor(lines, series.section, columns);
    const column = Object.fromEntries(columns.map((c) => [c, table.header.indexOf(c)]));
    end = Math.max(end, table.end);
    for (const { cells } of table.rows) {
      const cell = (name) => (name === undefined ? undefined : (cells[column[name]] ?? ''));
      const label = shortName(cell(series.label));
      const text = cell(series.value);
      const range = series.range && figuresIn(cell(series.range)).map(figureValue);
      const target = series.target && /^(?:≥|>|≤|<)\s*(\S+)$/.exec(cell(series.target))?.[1];
      bars.push({
        group: series.heading ?? (series.groupBy && (series.groupText ?? String)(cell(series.groupBy))),
        label,
        text,
        value: barValue(text, `"${series.value}" of ${label}`),
        range: range?.length === 2 ? range : undefined,
        target: target && isFigure(target) ? figureValue(target) : undefined,
      });
    }
  }
  return { bars, end };
}

// The drawing's measures, in px.
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const CHAR = 6.6; // a 12 px character, wide enough for most labels' letters
const PAD = 16;
const PLOT = 420;
const VALUE = 84;
const ROW = 22;
const BAR = 14;
const GROUP = 24;
const TOP = 70;
const COLOR = {
  ours: '#2f855a',
  other: '#8792a2',
  text: '#1a202c',
  muted: '#4a5568',
  grid: '#e2e8f0',
  target: '#c05621',
};

// A white outline under a value's text, so that the grid and the 1.00x line do not cross it.
const HALO = ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"';

const px = (n) => String(Number(n.toFixed(1)));
const xml = (text) =>
  String(text).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** A step for about five grid lines up to `max`: 1, 2, 2.5 or 5 times a power of ten. */
function gridStep(max) {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= raw * (1 - 1e-9));
}

/** A grid line's label, with as many decimals as the step needs. */
function tickLabel(value, step, ratio) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9) + (String(step).includes('25') ? 1 : 0));
  if (ratio) return `${value.toFixed(Math.min(decimals, 2))}x`;
  return value.toLocaleString('en-US', { maximumFractionDigits: decimals });
}

/** An SVG's frame: the size, the accessible name and description, the background and the title. */
function frame({ width, height, title, note, desc }, body) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${xml(title)}">`,
    `<title>${xml(title)}</title>`,
    `<desc>${xml(desc)}</desc>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="6" fill="#ffffff" stroke="${COLOR.grid}"/>`,
    `<g font-family="${FONT}" fill="${COLOR.text}">`,
    `<text x="${PAD}" y="26" font-size="15" font-weight="600">${xml(title)}</text>`,
    `<text x="${PAD}" y="45" font-size="11.5" fill="${COLOR.muted}">${xml(note)}</text>`,
    ...body,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

/** The SVG of `bars` under `spec`'s title. */
function drawChart(spec, bars) {
  const labelWidth = Math.ceil(Math.max(...bars.map((bar) => bar.label.length), 10) * CHAR);
  const x0 = PAD + labelWidth + 10;
  const width = x0 + PLOT + VALUE + PAD;
  const max = Math.max(
    spec.ratio ? 1 : 0,
    ...bars.flatMap((bar) => [bar.value ?? 0, ...(bar.range ?? []), bar.target ?? 0]),
  );
  const step = gridStep(max > 0 ? max : 1);
  const axisMax = Math.ceil(max / step - 1e-9) * step || step;
  const x = (value) => x0 + (value / axisMax) * PLOT;

  const body = [];
  let y = TOP;
  let group;
  for (const bar of bars) {
    if (bar.group !== undefined && bar.group !== group) {
      group = bar.group;
      y += 4;
      body.push(`<text x="${PAD}" y="${px(y + 14)}" font-size="12" font-weight="600">${xml(group)}</text>`);
      y += GROUP - 4;
    }
    const middle = y + ROW / 2;
    body.push(
      `<text x="${px(x0 - 10)}" y="${px(middle + 4)}" font-size="12" text-anchor="end">${xml(bar.label)}</text>`,
    );
    if (bar.value === undefined) {
      const why = bar.text === '' || bar.text === '—' ? 'no figure' : `no figure: ${bar.text.slice(0, 60)}`;
      body.push(
        `<text x="${px(x0 + 4)}" y="${px(middle + 4)}" font-size="12" font-style="italic" fill="${COLOR.muted}">${xml(why)}</text>`,
      );
    } else {
      const ours = spec.ours ? spec.ours.test(bar.label) : [bar.label, bar.group].some((s) => s?.startsWith('ours'));
      const fill = ours ? COLOR.ours : COLOR.other;
      // A bar of a figure above zero stays visible however large the largest is.
      body.push(
        `<rect x="${px(x0)}" y="${px(middle - BAR / 2)}" width="${px(Math.max(x(bar.value) - x0, bar.value > 0 ? 1 : 0))}" height="${BAR}" rx="2" fill="${fill}"/>`,
      );
      let right = x(bar.value);
      if (bar.range) {
        const [lo, hi] = bar.range.map(x);
        body.push(
          `<path d="M${px(lo)} ${px(middle)}H${px(hi)}M${px(lo)} ${px(middle - 4)}V${px(middle + 4)}M${px(hi)} ${px(middle - 4)}V${px(middle + 4)}" stroke="${COLOR.text}" stroke-width="1.2" fill="none"/>`,
        );
        right = Math.max(right, hi);
      }
      if (bar.target !== undefined) {
        const at = x(bar.target);
        body.push(
          `<path d="M${px(at)} ${px(middle - BAR / 2 - 3)}V${px(middle + BAR / 2 + 3)}" stroke="${COLOR.target}" stroke-width="2.5"/>`,
        );
        right = Math.max(right, at);
      }
      body.push(`<text x="${px(right + 6)}" y="${px(middle + 4)}" font-size="12"${HALO}>${xml(bar.text)}</text>`);
    }
    y += ROW;
  }

  const bottom = y + 4;
  const grid = [];
  for (let i = 0; i * step <= axisMax * (1 + 1e-9); i++) {
    const at = x(i * step);
    grid.push(`<path d="M${px(at)} ${TOP}V${px(bottom)}" stroke="${COLOR.grid}"/>`);
    grid.push(
      `<text x="${px(at)}" y="${px(bottom + 15)}" font-size="11" text-anchor="middle" fill="${COLOR.muted}">${xml(tickLabel(i * step, step, spec.ratio))}</text>`,
    );
  }
  if (spec.ratio) {
    grid.push(
      `<path d="M${px(x(1))} ${TOP - 6}V${px(bottom)}" stroke="${COLOR.text}" stroke-width="1.2" stroke-dasharray="4 3"/>`,
    );
    grid.push(`<text x="${px(x(1))}" y="${TOP - 9}" font-size="11" text-anchor="middle">1.00x</text>`);
  }
  const desc = bars
    .map(
      (bar) => `${bar.group ? `${bar.group}, ` : ''}${bar.label}: ${bar.value === undefined ? 'no figure' : bar.text}`,
    )
    .join('; ');
  return frame({ width, height: bottom + 30, title: spec.title, note: spec.note, desc }, [...grid, ...body]);
}

/** The SVG of a chart that cannot be drawn, naming why. */
function drawProblem(spec, message) {
  const width = 720;
  return frame({ width, height: 96, title: spec.title, note: spec.note, desc: `Not drawn: ${message}` }, [
    `<text x="${PAD}" y="74" font-size="12" font-style="italic" fill="${COLOR.target}">${xml(`Not drawn: ${message}`)}</text>`,
  ]);
}

/** One chart of `block`: its file, title and SVG, and the error that kept it from being drawn. */
export function renderChart(block, spec) {
  try {
    return { file: spec.file, title: spec.title, svg: drawChart(spec, chartRows(block, spec).bars) };
  } catch (error) {
    if (!(error instanceof ChartError || error instanceof FigureError)) throw error;
    return { file: spec.file, title: spec.title, svg: drawProblem(spec, error.message), error: error.message };
  }
}

/** Every chart of `block`. */
export const renderCharts = (block) => CHARTS.map((spec) => renderChart(block, spec));

const IMAGE = /^!\[[^\]]*\]\(charts\/[^)]*\.svg\)$/;
const imageOf = (spec) => `![${spec.title}](charts/${spec.file})`;

/**
 * `block` with the image of each chart after the last table it draws (a blank line before it), and
 * no other chart image: what the block holds once its charts are placed, whatever it held before.
 */
export function placeCharts(block) {
  const lines = block
    .split('\n')
    .filter((line, i, all) => !IMAGE.test(line) && !(line === '' && IMAGE.test(all[i + 1] ?? '')));
  const after = new Map();
  for (const spec of CHARTS) {
    let end;
    try {
      end = chartRows(lines.join('\n'), spec).end;
    } catch {
      continue; // a chart that cannot be drawn is not shown
    }
    after.set(end - 1, [...(after.get(end - 1) ?? []), imageOf(spec)]);
  }
  return lines.flatMap((line, i) => [line, ...(after.get(i) ?? []).flatMap((image) => ['', image])]).join('\n');
}

/**
 * Places the charts' images in bench/README.md's results block and writes every chart into
 * bench/charts/, removing any other SVG there; returns the charts that could not be drawn.
 */
export function writeCharts() {
  const page = readFileSync(README, 'utf8');
  const block = resultsBlock(page);
  const placed = placeCharts(block);
  if (placed !== block) {
    const start = page.indexOf(block);
    writeFileSync(README, `${page.slice(0, start)}${placed}${page.slice(start + block.length)}`);
  }
  const charts = renderCharts(placed);
  const files = new Set(charts.map((chart) => chart.file));
  mkdirSync(CHARTS_DIR, { recursive: true });
  for (const name of readdirSync(CHARTS_DIR))
    if (name.endsWith('.svg') && !files.has(name)) rmSync(new URL(name, CHARTS_DIR));
  for (const chart of charts) writeFileSync(new URL(chart.file, CHARTS_DIR), chart.svg);
  return charts.filter((chart) => chart.error !== undefined);
}
