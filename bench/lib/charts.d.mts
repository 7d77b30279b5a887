// Types of charts.mjs: bench/README.md's results block drawn as SVG charts in bench/charts/.

/** A series of a chart: one table of a section, found by the columns it names. */
export interface ChartSeries {
  section: string;
  value: string;
  label: string;
  groupBy?: string;
  groupText?: (cell: string) => string;
  heading?: string;
  range?: string;
  target?: string;
}
/** A chart: its file in bench/charts/, its title and note, whether its values are ratios, its series. */
export interface ChartSpec {
  file: string;
  title: string;
  note: string;
  ratio?: boolean;
  ours?: RegExp;
  series: ChartSeries[];
}
/** A bar: its group, label, the cell's text, its value where the cell is a figure, range and target. */
export interface Bar {
  group: string | undefined;
  label: string;
  text: string;
  value: number | undefined;
  range: [number, number] | undefined;
  target: number | undefined;
}
/** A drawn chart, and the error that kept it from being drawn from the block's figures. */
export interface Chart {
  file: string;
  title: string;
  svg: string;
  error?: string;
}

export const CHARTS_DIR: URL;
/** The command that redraws the charts, from the repository's root. */
export const CHARTS_COMMAND: string;
/** A chart's data that cannot be drawn as it is. */
export class ChartError extends Error {}
/** The bars `spec` draws from `block`, and the line after which its image goes; a ChartError where it cannot. */
export function chartRows(block: string, spec: ChartSpec): { bars: Bar[]; end: number };
/** One chart of `block`. */
export function renderChart(block: string, spec: ChartSpec): Chart;
/** Every chart of `block`. */
export function renderCharts(block: string): Chart[];
/** `block` with each chart's image after the last table it draws, and no other chart image. */
export function placeCharts(block: string): string;
/** Places the images in bench/README.md and writes bench/charts/; returns the charts not drawn. */
export function writeCharts(): Chart[];
