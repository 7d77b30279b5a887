// docs/production.md shows the high-availability suite's figures as scripts/ha-figures.mjs makes them from
// the report of one run committed beside the suite (test/ha/report.json, which
// `PLANT_STORE_HA_REPORT=test/ha/report.json npm run test:ha` writes): the page holds exactly what the
// report makes, and the report is that of a green run, every acknowledged create kept and every answer
// a 200 or a 503, so a page cannot show the figures of a run that failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HA_FIGURES_COMMAND,
  HA_FIGURES_END,
  HA_FIGURES_PAGE,
  HA_FIGURES_START,
  haFigures,
  readHaReport,
} from '../../scripts/ha-figures.mjs';
import { withSection } from '../../scripts/page-sections.mjs';
import { root } from './blocks.js';

const read = (page: string) => readFileSync(join(root, page), 'utf8');
const report = readHaReport();

describe('the figures of the high-availability suite', () => {
  it(`are on ${HA_FIGURES_PAGE} as the committed report makes them`, () => {
    const text = read(HA_FIGURES_PAGE);
    expect(text, `${HA_FIGURES_PAGE} has a ${HA_FIGURES_START} … ${HA_FIGURES_END} section`).toContain(
      HA_FIGURES_START,
    );
    const made = withSection(text, HA_FIGURES_START, HA_FIGURES_END, haFigures(report));
    expect(text === made, `${HA_FIGURES_PAGE} is stale: run ${HA_FIGURES_COMMAND}`).toBe(true);
  });

  it('come from a run in which every test passed, nothing acknowledged was lost and every answer was 200 or 503', () => {
    expect(report.failed).toEqual([]);
    const paths = report.events.filter((entry) => entry.kind === 'path');
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((each) => each.lost !== 0 || each.other !== 0)).toEqual([]);
  });

  it('name the command in package.json that writes them', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[HA_FIGURES_COMMAND.replace('npm run ', '')]).toBe('node scripts/ha-figures.mjs');
  });
});
