// The CLI tests' wait for a banner (cli-process.ts), on stand-ins for the CLI: it lasts as long as the
// test may, and its failure says what the process printed and whether it still runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { listening, run } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-cli-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for the CLI: a script of `source` run as run() runs dist/cli.js. */
function standIn(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

it('reports a CLI still silent just before the test times out, with what it printed and that it still runs', async () => {
  const silent = standIn('silent.mjs', "process.stderr.write('loading the SDK\\n');\nsetInterval(() => {}, 1000);\n");
  const started = Date.now();
  const error = await listening(run([], {}, silent)).catch((caught: unknown) => caught);
  // The test's timeout is 3 s: the wait reports a second before it, not at a bound of its own.
  expect(Date.now() - started).toBeGreaterThan(1_500);
  expect(String(error)).toMatch(
    /^Error: the CLI did not start: it printed no banner in \d+\.\d s, the time the test had left, and it is still running \(pid \d+\); stdout: {2}stderr: loading the SDK\n$/,
  );
}, 3_000);

it('reports a CLI that exits without a banner as soon as its output closes, with its exit code', async () => {
  const failing = standIn('failing.mjs', "process.stderr.write('could not start\\n');\nprocess.exitCode = 1;\n");
  await expect(listening(run([], {}, failing))).rejects.toThrow(
    /^the CLI did not start: it closed its output without a banner after \d+\.\d s, and it exited with code 1; stdout: {2}stderr: could not start\n$/,
  );
});

it('returns the URL of the banner', async () => {
  const banner = standIn(
    'banner.mjs',
    "process.stdout.write('Plant Store server listening on http://127.0.0.1:1/\\n');\n",
  );
  expect(await listening(run([], {}, banner))).toBe('http://127.0.0.1:1/');
});
