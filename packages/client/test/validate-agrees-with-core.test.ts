// The proof that the client's validator is the service's own: every body of the contract table and
// 10,000 generated bodies near a NewPlant go to the core (the server's code, in memory) and, parsed
// exactly, to validateNewPlant. The validator accepts exactly the bodies the core answers 200, with the
// same plant, and refuses the others with the core's 40002 and its message, byte for byte. The codes only
// the server can give (40001 not JSON, 40003 id taken, 41301 over its body limit) are not the validator's.
import { createMemoryStore, createPlantStoreApp } from '@plant-store/core';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { cases } from '../../../test/contract/cases.js';
import { nearNewPlant } from '../../../test/hardening/near-new-plant.js';
import { topLevelRawId } from '../../../test/hardening/spec-oracle.js';
import { createPlant } from '../src/index.js';
import { validateNewPlant } from '../src/validate.js';

const TOKEN = 'validator-proof-token';

/**
 * Stands for a JSON number no double holds, as lossless JSON parsers do: a fraction such as
 * 1.00000000000000000001, which JSON.parse would turn into the integer 1.
 */
class LosslessNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number's exact value: an integer as a number when safe, else a bigint; a fraction as a double when one holds it. */
function exactNumber(text: string): number | bigint | LosslessNumber {
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = NUMBER.exec(text) ?? [];
  const digits = (whole + fraction).replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (whole + fraction).length - digits.length;
  if (digits === '' || /^0*$/.test(digits)) return 0;
  if (scale >= 0) {
    // The generators write exponents of a few hundred at most; 10^scale stays small enough to compute.
    if (scale > 10_000) throw new Error(`exponent too large for this test: ${text}`);
    const value = BigInt(`${sign}${digits}`) * 10n ** BigInt(scale);
    return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }
  const double = Number(text);
  return Number.isInteger(double) ? new LosslessNumber(text) : double;
}

/** The body as a caller would hold it: JSON.parse, with the top-level id read exactly from its text. */
function parseExactly(bodyText: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bodyText);
  } catch {
    return undefined; // 40001: only the server sees text
  }
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'number') {
    (value as { id: unknown }).id = exactNumber(topLevelRawId(bodyText)!);
  }
  return { value };
}

/** What the core answers for `bodyText`, sent alone to a fresh app and store. */
async function coreAnswer(bodyText: string) {
  const app = createPlantStoreApp({ tokens: [TOKEN], store: createMemoryStore() });
  const response = await app.fetch(
    new Request('http://plant.test/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: bodyText,
    }),
  );
  const body = (await response.json()) as { error?: number; message?: string; name?: string; tag?: string };
  return { status: response.status, body, stored: await app.store.list() };
}

/** Asserts the validator's verdict on `bodyText` is the core's; returns the core's status. */
async function expectAgreement(bodyText: string): Promise<number> {
  const parsed = parseExactly(bodyText);
  const answer = await coreAnswer(bodyText);
  const where = `${bodyText.slice(0, 200)} -> ${answer.status} ${JSON.stringify(answer.body)}`;
  if (parsed === undefined) {
    expect(answer.body.error, where).toBe(40001);
    return answer.status;
  }
  const result = validateNewPlant(parsed.value);
  if (answer.status === 200) {
    expect(result.issues, where).toBeUndefined();
    const plant = result.value!;
    const [stored] = answer.stored;
    expect({ ...plant, id: BigInt(plant.id) }, where).toStrictEqual({ ...stored });
  } else if (answer.body.error === 40002) {
    expect(result.issues?.[0], where).toStrictEqual({
      code: 40002,
      message: answer.body.message,
      path: result.issues?.[0].path,
    });
  } else {
    // Over the service's body limit: the size is the server's to judge, not the validator's.
    expect(answer.body.error, where).toBe(41301);
  }
  return answer.status;
}

it('agrees with the core on every body of the contract table', async () => {
  const bodies = new Set<string>();
  for (const { steps } of cases) {
    for (const { request } of steps) {
      if (request.method === 'POST' && typeof request.body === 'string') bodies.add(request.body);
    }
  }
  const statuses = new Map<number, number>();
  for (const body of bodies) {
    const status = await expectAgreement(body);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  // The table has bodies of every kind: accepted, refused as no NewPlant, not JSON, over the limit.
  expect([...statuses.keys()].sort()).toEqual([200, 400, 413]);
});

it('agrees with the core on 10,000 bodies near a NewPlant: accepts exactly what it answers 200, else its 40002', async () => {
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(nearNewPlant, async ({ bodyText }) => {
      if ((await expectAgreement(bodyText)) === 200) accepted++;
    }),
    { numRuns: 10_000 },
  );
  // Both verdicts are exercised, not only refusals.
  expect(accepted).toBeGreaterThan(1_000);
  expect(accepted).toBeLessThan(9_000);
}, 120_000);

it('sends what it accepts with createPlant, and the core stores that plant', async () => {
  const app = createPlantStoreApp({ tokens: [TOKEN], store: createMemoryStore() });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => app.fetch(new Request(input, init));
  for (const [i, value] of [
    { id: 9007199254740993n, name: 'Fern', tag: 'shade', extra: 1 },
    { id: -9223372036854775808n, name: '' },
    { id: 42, name: '\ud800 lone', tag: undefined },
  ].entries()) {
    const result = validateNewPlant(value);
    expect(result.issues, `value ${i}`).toBeUndefined();
    await createPlant(TOKEN, result.value!, { baseUrl: 'http://plant.test', fetch, retries: 0 });
    expect(await app.store.get(BigInt(result.value!.id))).toBeDefined();
  }
});
