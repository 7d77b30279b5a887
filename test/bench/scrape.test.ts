// The bench's Prometheus stand-in (bench/lib/scrape.mjs) scrapes from a process of its own: every
// scrape it made must reach the tally, answered or not, and a stop must end that process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
// @ts-expect-error the bench is plain JavaScript without declarations
import { scrapeEverySecond } from '../../bench/lib/scrape.mjs';

const servers: Server[] = [];
afterEach(() =>
  Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve())))),
);

it('counts answered and failed scrapes from its own process, one last scrape included', async () => {
  let scraped = 0;
  const server = createServer((req, res) => {
    scraped++;
    res.writeHead(req.url === '/metrics' ? 200 : 500).end('# metrics\n');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tally = { ok: 0, failed: 0 };
  const stop = (scrapeEverySecond as (urls: string[], tally: object) => () => Promise<void>)(
    [`${base}/metrics`, `${base}/broken`, 'http://127.0.0.1:1/metrics'],
    tally,
  );
  // The first scrape comes a second after the scraper's process is up, however long that took (a
  // loaded machine starts a process slowly): from it, 1.3 s hold the second one.
  const deadline = Date.now() + 10_000;
  while (scraped < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  await stop();
  // Two scrapes a second apart, then the last one: each of the three urls every time.
  expect(tally.ok).toBeGreaterThanOrEqual(3);
  expect(tally.failed).toBe(2 * tally.ok);
  expect(scraped).toBe(2 * tally.ok);
});
