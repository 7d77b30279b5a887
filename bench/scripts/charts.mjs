// `npm run charts -w bench`: draws bench/README.md's results block again into bench/charts/ and places
// each chart's image in the block (lib/charts.mjs), without a bench run: after the block's
// tables have changed by hand, or the drawing has.
import { writeCharts } from '../lib/charts.mjs';

const problems = writeCharts();
for (const chart of problems) process.stderr.write(`charts: ${chart.file} not drawn: ${chart.error}\n`);
process.stdout.write('charts: wrote bench/charts/ and the images in bench/README.md\n');
process.exitCode = problems.length > 0 ? 1 : 0;
