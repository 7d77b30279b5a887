import { afterAll, beforeAll, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types, shared with the bench workspace
import { BUDGET, measureBundleSize, measureValidateBundleSize, VALIDATE_BUDGET } from '../scripts/bundle-size.mjs';
import { buildCopy } from './build-copy.js';

interface Size {
  min: number;
  gzip: number;
}

// A fresh tsup build of the package with its own config, so the size is that of the code under test.
let copy: Awaited<ReturnType<typeof buildCopy>>;

beforeAll(async () => {
  copy = await buildCopy();
});

afterAll(() => copy.remove());

it('keeps createPlant, bundled alone for the browser with openapi-fetch, within the min+gzip budget', async () => {
  const size = (await measureBundleSize({ entry: copy.esm })) as Size;
  const errorCodes = (await measureBundleSize({ entry: copy.esm, names: ['ErrorCode'] })) as Size;

  // The bundle holds the client and openapi-fetch, not just the constants: an empty one would pass.
  expect(size.min).toBeGreaterThan(errorCodes.min);
  expect(size.gzip, `${size.min} B min, ${size.gzip} B min+gzip`).toBeLessThanOrEqual(BUDGET as number);
});

it('tree-shakes the error codes away from everything else', async () => {
  const size = (await measureBundleSize({ entry: copy.esm, names: ['ErrorCode'] })) as Size;

  // The constants alone: no openapi-fetch, no client, no error classes.
  expect(size.min).toBeLessThan(600);
});

it('keeps the whole validate entry, bundled for the browser, within its own min+gzip budget', async () => {
  const size = (await measureValidateBundleSize({ entry: copy.validateEsm })) as Size;

  // The validator and the service's messages are in it: an empty bundle would pass the budget.
  expect(size.min).toBeGreaterThan(600);
  expect(size.gzip, `${size.min} B min, ${size.gzip} B min+gzip`).toBeLessThanOrEqual(VALIDATE_BUDGET as number);
});
