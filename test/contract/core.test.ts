import { expect, it } from 'vitest';
import { cases } from './cases.js';
import { assertContract, casesFor } from './harness.js';
import { runOnCore } from './reference.js';

it.each(casesFor(cases, 'core'))('%s (core in memory)', async (_name, testCase, caseIndex) => {
  const outcome = await runOnCore(testCase, caseIndex);
  assertContract(testCase, caseIndex, 'core', outcome, outcome);
});

it('gives every transport exclusion a reason', () => {
  const reasons = cases.flatMap((testCase) => Object.values(testCase.except ?? {}));
  expect(reasons.every((reason) => typeof reason === 'string' && reason.length > 20)).toBe(true);
});
