// `npm run bench`: measures the plant store against its targets (bench/README.md) and prints the
// results. A full run also writes them into bench/README.md, between its marker comments, the
// figures docs/ quotes from them into those pages (lib/doc-figures.mjs), and the charts drawn from
// them into bench/charts/, each shown in the block beside its table (lib/charts.mjs); a run of
// some parts (`-- --only servers`, BENCH_ONLY) or a short one (BENCH_QUICK=1) leaves the page alone.
// Servers and load generator run in separate processes pinned to separate cores (taskset), on
// 127.0.0.1 only; every step is bounded and the run stops by itself.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCharts } from './lib/charts.mjs';
import { writeDocFigures } from './lib/doc-figures.mjs';
import { BenchUsageError, USAGE, readOptions, wants } from './lib/options.mjs';
import { errorDetail, errorText, renderResults, writeReadmeResults } from './lib/report.mjs';
import * as bundle from './parts/bundle.mjs';
import * as client from './parts/client.mjs';
import * as memory from './parts/memory.mjs';
import * as msw from './parts/msw.mjs';
import * as ops from './parts/ops.mjs';
import * as postgres from './parts/postgres.mjs';
import * as production from './parts/production.mjs';
import * as servers from './parts/servers.mjs';
import * as tracing from './parts/tracing.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

let options;
try {
  options = readOptions();
} catch (error) {
  if (!(error instanceof BenchUsageError)) throw error;
  process.stderr.write(`bench: ${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const tmp = mkdtempSync(join(tmpdir(), 'plant-store-bench-'));
const ctx = { options, plan: options.plan, tmp, log };
const startedAt = new Date();
const sections = [];
try {
  for (const part of [servers, postgres, ops, production, tracing, client, msw, memory, bundle]) {
    let outcome;
    if (!wants(options, part.name)) outcome = { skipped: true };
    else {
      log(`bench: ${part.name}`);
      try {
        outcome = { value: await part.run(ctx) };
      } catch (error) {
        log(`bench: ${part.name} pending: ${errorDetail(error)}`);
        outcome = { pending: errorText(error) };
      }
    }
    try {
      sections.push(part.report(outcome, ctx));
    } catch (error) {
      // A report that cannot be written must not cost the other parts' figures of a long run.
      sections.push({ lines: [`### ${part.name}`, '', `report failed: ${errorText(error)}`, ''], targets: [] });
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const results = renderResults({ startedAt, options, sections });
process.stdout.write(`${results}\n`);
if (options.full) {
  writeReadmeResults(results);
  log('bench: wrote the results into bench/README.md');
  // The block is written by now: neither of these may cost it, nor the other, by failing.
  try {
    writeDocFigures();
    log('bench: wrote its figures into docs/operations.md and docs/postgres.md');
  } catch (error) {
    log(`bench: the figures of docs/ not written: ${errorText(error)}`);
  }
  try {
    for (const chart of writeCharts()) log(`bench: chart ${chart.file} not drawn: ${chart.error}`);
    log('bench: drew its charts into bench/charts/');
  } catch (error) {
    log(`bench: the charts not written: ${errorText(error)}`);
  }
} else {
  const copy = join(tmpdir(), 'plant-store-bench-partial.md');
  writeFileSync(copy, `${results}\n`);
  log(`bench: not a full run, bench/README.md left as it is (a copy of these results: ${copy})`);
}
