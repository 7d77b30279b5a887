import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types, shared with the bench workspace
import { BUDGET, measureBundleSize } from '../scripts/bundle-size.mjs';
import { buildCopy } from './build-copy.js';

interface Size {
  min: number;
  gzip: number;
  budget: number;
}

let copy: Awaited<ReturnType<typeof buildCopy>>;

beforeAll(async () => {
  copy = await buildCopy();
});

afterAll(() => copy.remove());

it('keeps createPlant, bundled alone for the browser with openapi-fetch, within 4,096 bytes min+gzip', async () => {
  const size = (await measureBundleSize({ entry: copy.esm })) as Size;
  console.log(`createPlant alone, browser bundle: ${size.min} B min, ${size.gzip} B min+gzip (budget ${size.budget} B)`);

  expect(BUDGET).toBe(4096);
  expect(size.gzip).toBeLessThanOrEqual(BUDGET);
});

it('tree-shakes the error codes away from everything else', async () => {
  const size = (await measureBundleSize({ entry: copy.esm, names: ['ErrorCode'] })) as Size;

  // The constants alone: no openapi-fetch, no client, no error classes.
  expect(size.min).toBeLessThan(600);
});
