// The proof that the client's validator is the service's own. Bodies drawn from openapi.yaml's NewPlant
// (test/support/new-plant-bodies.ts: every field's keys, types and rules read from the document, unknown
// keys and __proto__ among them) go to four judges, held equal on every one: Ajv over the spec, the
// core's readNewPlant (the server's 40002 check), validateNewPlant given the body as a caller holds it
// (an int64 exactly), and newPlantSchema's Standard Schema validate. They accept the same bodies; the
// validator's plant, written by writeNewPlant and read by the core, is the plant the core stores; a
// refusal is the core's 40002 message, byte for byte, naming the first field at fault. The bodies of
// the contract table go to the core through its fetch function. The codes only the server can give
// (40001 not JSON, 40003 id taken, 41301 over its body limit) are not the validator's.
import { createMemoryStore, createPlantStoreApp, PLANT_FIELDS } from '@plant-store/core';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { readNewPlant } from '../../core/src/generated/plant-codec.js';
import { PLANT_MESSAGES } from '../../core/src/generated/plant-shape.js';
import { cases } from '../../../test/contract/cases.js';
import {
  type Body,
  bodyOf,
  callerValue,
  newPlantBody,
  Reach,
  SPEC_FIELDS,
  specVerdict,
  unsigned,
} from '../../../test/support/new-plant-bodies.js';
import { writeNewPlant } from '../src/generated/plant-codec.js';
import { createPlant } from '../src/index.js';
import { newPlantSchema, validateNewPlant } from '../src/validate.js';

const TOKEN = 'validator-proof-token';

/** Asserts that the four judges agree on `body`; returns the spec's verdict. */
async function expectFourAgree(body: Body) {
  const verdict = specVerdict(body);
  const stored = readNewPlant(JSON.parse(body.text), body.text);
  const value = callerValue(body);
  const result = validateNewPlant(value);
  const where = `${body.text.slice(0, 200)} -> ${typeof stored === 'string' ? stored : 'accepted'}`;
  expect(await newPlantSchema['~standard'].validate(value), where).toStrictEqual(result);
  if (verdict.accepted) {
    expect(stored, where).toStrictEqual(verdict.plant);
    expect(result.issues, where).toBeUndefined();
    const sent = writeNewPlant(result.value!);
    expect(unsigned(readNewPlant(JSON.parse(sent), sent) as object), `${where}, sent as ${sent}`).toStrictEqual(
      unsigned(stored as object),
    );
  } else {
    const message = PLANT_MESSAGES[verdict.key as keyof typeof PLANT_MESSAGES];
    expect(stored, where).toBe(message);
    expect(result.issues?.[0], where).toStrictEqual({
      code: 40002,
      message,
      path: verdict.field === undefined ? [] : [verdict.field],
    });
  }
  return verdict;
}

it('holds Ajv, the core, validateNewPlant and newPlantSchema equal on bodies drawn from the spec', async () => {
  const reach = new Reach();
  await fc.assert(
    fc.asyncProperty(newPlantBody, async (body) => {
      reach.note(body, await expectFourAgree(body));
    }),
    // Enough runs that each field, however many, is now and then the first at fault in each of its ways.
    { numRuns: 600 * SPEC_FIELDS.length },
  );
  // Both verdicts, and each field's every way of failing as the first fault, or the agreement means little.
  reach.expectReached(10);
});

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
  const body = (await response.json()) as { error?: number; message?: string };
  return { status: response.status, body, stored: await app.store.list() };
}

it('agrees with the core on every body of the contract table', async () => {
  const bodies = new Set<string>();
  for (const { steps } of cases) {
    for (const { request } of steps) {
      if (request.method === 'POST' && typeof request.body === 'string') bodies.add(request.body);
    }
  }
  const statuses = new Map<number, number>();
  for (const bodyText of bodies) {
    const answer = await coreAnswer(bodyText);
    const where = `${bodyText.slice(0, 200)} -> ${answer.status} ${JSON.stringify(answer.body)}`;
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    let body: Body;
    try {
      body = bodyOf(bodyText);
    } catch {
      expect(answer.body.error, where).toBe(40001); // not JSON: only the server sees text
      continue;
    }
    const result = validateNewPlant(callerValue(body));
    if (answer.status === 200) {
      expect(result.issues, where).toBeUndefined();
      const plant = result.value as Record<string, unknown>;
      const asStored = Object.fromEntries(
        PLANT_FIELDS.filter(({ name }) => plant[name] !== undefined).map(({ name, kind }) => [
          name,
          kind === 'int64' ? BigInt(plant[name] as number | bigint) : plant[name],
        ]),
      );
      expect(
        answer.stored.map((stored) => ({ ...stored })),
        where,
      ).toStrictEqual([asStored]);
    } else if (answer.body.error === 40002) {
      expect(result.issues?.[0]?.message, where).toBe(answer.body.message);
    } else {
      // Over the service's body limit: the size is the server's to judge, not the validator's.
      expect(answer.body.error, where).toBe(41301);
    }
  }
  // The table has bodies of every kind: accepted, refused as no NewPlant, not JSON, over the limit.
  expect([...statuses.keys()].sort()).toEqual([200, 400, 413]);
});

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
