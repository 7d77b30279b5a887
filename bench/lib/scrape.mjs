// A Prometheus stand-in: scrapes `/metrics` URLs once a second while a load runs, as a real
// scraper would, so that a server's metrics cost includes answering its scrapes.

/**
 * Starts scraping every url in `urls` once a second, counting answers in `tally` (`ok`: 200 with
 * its whole body read, `failed`: anything else). Resolves nothing; the returned function stops it
 * after one last scrape.
 * @param {string[]} urls
 * @param {{ ok: number, failed: number }} tally
 * @returns {() => Promise<void>}
 */
export function scrapeEverySecond(urls, tally) {
  const scrape = () =>
    Promise.all(
      urls.map(async (url) => {
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
          await response.text();
          tally[response.status === 200 ? 'ok' : 'failed']++;
        } catch {
          tally.failed++;
        }
      }),
    );
  const timer = setInterval(scrape, 1_000);
  return async () => {
    clearInterval(timer);
    await scrape();
  };
}
