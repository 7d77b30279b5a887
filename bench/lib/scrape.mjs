// A Prometheus stand-in: scrapes `/metrics` URLs once a second while a load runs, as a real
// scraper would, so that a server's metrics cost includes answering its scrapes. The scraper is a
// process of its own on the load generator's core, as Prometheus runs on another machine: the
// bench's own process has no core kept for it and may run beside the servers.
//
// As a child: `node scrape.mjs '<json urls>'` scrapes until its stdin ends, then scrapes once more and
// prints `RESULT {"ok":…,"failed":…}`.
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnNode, waitForLine } from './proc.mjs';

const SELF = fileURLToPath(import.meta.url);

/**
 * Starts scraping every url in `urls` once a second from a process on `core`, counting answers in
 * `tally` (`ok`: 200 with its whole body read, `failed`: anything else, and a scraper that fails).
 * The returned function stops it after one last scrape and adds its counts to `tally`.
 * @param {string[]} urls
 * @param {{ ok: number, failed: number }} tally
 * @param {{ core?: number }} [where]
 * @returns {() => Promise<void>}
 */
export function scrapeEverySecond(urls, tally, { core } = {}) {
  const proc = spawnNode([SELF, JSON.stringify(urls)], { core, stdin: 'pipe' });
  return async () => {
    try {
      const result = waitForLine(proc, 'RESULT', 15_000);
      proc.child.stdin.end();
      const counts = await result;
      tally.ok += counts.ok;
      tally.failed += counts.failed;
    } catch {
      // A scraper that died or hung counts as one failed scrape of every url, never as none.
      tally.failed += urls.length;
      proc.child.kill('SIGKILL');
    }
    await proc.exited;
  };
}

/** Scrapes `urls` every second until stdin ends; one last scrape, then the counts. */
async function scrapeUntilStdinEnds(urls) {
  const counts = { ok: 0, failed: 0 };
  const scrape = () =>
    Promise.all(
      urls.map(async (url) => {
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
          await response.text();
          counts[response.status === 200 ? 'ok' : 'failed']++;
        } catch {
          counts.failed++;
        }
      }),
    );
  // Every scrape is counted: the last one waits for any still under way.
  let underWay = Promise.resolve();
  const timer = setInterval(() => {
    underWay = Promise.all([underWay, scrape()]);
  }, 1_000);
  for await (const _ of createInterface({ input: process.stdin }));
  clearInterval(timer);
  await Promise.all([underWay, scrape()]);
  process.stdout.write(`RESULT ${JSON.stringify(counts)}\n`);
}

if (process.argv[1] === SELF) await scrapeUntilStdinEnds(JSON.parse(process.argv[2] ?? '[]'));
