// Property tests of the runtime-neutral core, in memory through `app.fetch(new Request(...))`.
// The judge is spec-oracle.ts (Ajv over openapi.yaml plus an exact int64 check) and, for bodies drawn
// from every field of the spec, test/support/new-plant-bodies.ts (the same, field by field), never the
// core's own validator. Run counts are fixed and small enough for a shared CI machine; every property
// reports its seed on failure so a counterexample replays exactly.
import { createMemoryStore, createPlantStoreApp, PLANT_MESSAGES } from '@plant-store/core';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { INT64_MAX, INT64_MIN, answerOf, expectWellFormed, judge, strictUtf8, type Verdict } from './spec-oracle.js';
import {
  anyPlant,
  edgeValues,
  fullPlant,
  otherValue,
  plantOf,
  VALUE_FIELDS,
  without,
} from '../../packages/core/src/internal/conformance-values.js';
import { newPlantBody, plantAnswer, plantBody, specVerdict, unsigned } from '../support/new-plant-bodies.js';
import { anyInt64, idNumberText, nearNewPlant } from './near-new-plant.js';

const TOKEN = 'core-prop-token-7f3a9c';
const URL_ = 'http://plant.test/plants';

const newApp = () => createPlantStoreApp({ tokens: [TOKEN], store: createMemoryStore() });
type App = ReturnType<typeof newApp>;

const post = (app: App, body: BodyInit, headers: Record<string, string> = {}) =>
  app
    .fetch(
      new Request(URL_, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
        body,
      }),
    )
    .then(answerOf);

/** Asserts the core's answer and store match what the spec says of this body. */
async function expectVerdict(app: App, verdict: Verdict, answer: Awaited<ReturnType<typeof post>>) {
  const parsed = expectWellFormed(answer);
  const where = `${answer.status} ${answer.body.slice(0, 200)}`;
  switch (verdict.kind) {
    case 'not-json':
      expect(parsed.error, where).toBe(40001);
      expect(await app.store.size()).toBe(0);
      break;
    case 'invalid':
      expect(parsed.error, where).toBe(40002);
      expect(await app.store.size()).toBe(0);
      break;
    case 'valid': {
      expect(answer.status, where).toBe(200);
      const plant = verdict.tag === undefined ? { name: verdict.name } : { name: verdict.name, tag: verdict.tag };
      expect(parsed).toStrictEqual(plant);
      const stored = await app.store.get(verdict.id);
      expect(stored && { ...stored }, `store.get(${verdict.id})`).toEqual({ id: verdict.id, ...plant });
      expect(stored && Object.keys(stored).sort()).toEqual(Object.keys({ id: 0, ...plant }).sort());
      expect(await app.store.size()).toBe(1);
      break;
    }
  }
}

// ---- generators: ./near-new-plant.ts, shared with the client's validator proof -------------------

// A starved machine stops a property after 20 s with the runs done so far, instead of failing on the
// 30 s test timeout: a hang guard, not a speed check.
const settings = (numRuns: number) => ({ numRuns, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false });

// ---- properties -------------------------------------------------------------------------------

test('agrees with the schema in openapi.yaml on every body near a NewPlant: 200 exactly when valid, 40002 otherwise', async () => {
  await fc.assert(
    fc.asyncProperty(nearNewPlant, async ({ bodyText, rawId }) => {
      const app = newApp();
      await expectVerdict(app, judge(bodyText, rawId), await post(app, bodyText));
    }),
    settings(1200),
  );
});

test("answers every body drawn from the spec's NewPlant as the spec judges it: 200 with its Plant, or 40002 naming the first field at fault", async () => {
  await fc.assert(
    fc.asyncProperty(newPlantBody, async (body) => {
      const app = newApp();
      const verdict = specVerdict(body);
      const answer = await post(app, body.text);
      const where = `${body.text.slice(0, 200)} -> ${answer.status} ${answer.body.slice(0, 200)}`;
      if (verdict.accepted) {
        expect(answer.status, where).toBe(200);
        expect(JSON.parse(answer.body), where).toStrictEqual(unsigned(plantAnswer(verdict.plant)));
        const stored = await app.store.get(verdict.plant.id as bigint);
        expect(unsigned({ ...stored }), where).toStrictEqual(unsigned(verdict.plant));
      } else {
        const message = PLANT_MESSAGES[verdict.key as keyof typeof PLANT_MESSAGES];
        expect(JSON.parse(answer.body), where).toStrictEqual({ error: 40002, message });
        expect(await app.store.size()).toBe(0);
      }
    }),
    settings(400),
  );
});

test('answers any JSON value as a body with 200 or a 400 from the table, judged as the schema judges it', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
      const app = newApp();
      const bodyText = JSON.stringify(value);
      await expectVerdict(app, judge(bodyText), await post(app, bodyText));
    }),
    settings(500),
  );
});

/** Arbitrary bytes, valid JSON with a byte broken, and JSON with invalid UTF-8 inside a string. */
const hostileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 80 }),
  fc
    .tuple(nearNewPlant, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('replace', 'insert', 'delete'))
    .map(([{ bodyText }, at, byte, how]) => {
      const b = Array.from(new TextEncoder().encode(bodyText));
      const i = at % (b.length + 1);
      if (how === 'replace' && i < b.length) b[i] = byte;
      else if (how === 'insert') b.splice(i, 0, byte);
      else b.splice(i, 1);
      return Uint8Array.from(b);
    }),
  fc
    .tuple(
      fc.constantFrom(
        [0xc3, 0x28],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf5, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
        [0xff],
        [0x80],
        [0xf0, 0x9f, 0x98],
      ),
      fc.constantFrom('name', 'tag', 'extra'),
    )
    .map(([bad, where]) => {
      const head = new TextEncoder().encode(`{"id":1,"${where}":"a`);
      const tail = new TextEncoder().encode(`b"${where === 'name' ? '' : ',"name":"n"'}}`);
      return Uint8Array.from([...head, ...bad, ...tail]);
    }),
);

test('answers random bytes as a body with 40001 unless they are UTF-8 JSON, then as the schema judges it', async () => {
  await fc.assert(
    fc.asyncProperty(hostileBytes, async (bytes) => {
      const app = newApp();
      const answer = await post(app, bytes);
      const decoded = strictUtf8(bytes);
      if (decoded?.startsWith('\ufeff')) {
        // RFC 8259 §8.1: a parser MAY ignore a byte order mark; either reading is fine.
        const stripped = judge(decoded.slice(1));
        const parsed = expectWellFormed(answer);
        if (parsed.error !== 40001) await expectVerdict(app, stripped, answer);
        return;
      }
      await expectVerdict(app, judge(decoded), answer);
    }),
    settings(800),
  );
});

test('keeps every int64 id exactly, sent as raw digits, and answers a replay 200 and a body changed in any one field 40003', async () => {
  await fc.assert(
    fc.asyncProperty(anyInt64, anyPlant(fc.constant(0n)), fc.nat(), async (id, drawn, which) => {
      const app = newApp();
      const plant = { ...drawn, id };
      const bodyText = plantBody(plant);
      const first = await post(app, bodyText);
      expect(first.status, bodyText).toBe(200);
      expect(JSON.parse(first.body)).toStrictEqual(plantAnswer(plant));

      const replay = await post(app, bodyText);
      expect(replay.status).toBe(200);
      expect(replay.body).toBe(first.body);

      // One field changed: another value, an optional one dropped, or an absent one added.
      const field = VALUE_FIELDS[which % VALUE_FIELDS.length]!;
      const value = (plant as Record<string, unknown>)[field.name];
      const other = value === undefined ? edgeValues(field)[0] : otherValue(field, value);
      const changed =
        other !== undefined ? { ...plant, [field.name]: other } : field.required ? undefined : without(plant, field);
      if (changed !== undefined) {
        const conflict = expectWellFormed(await post(app, plantBody(changed)));
        expect(conflict.error).toBe(40003);
      }
      expect({ ...(await app.store.get(id)) }).toStrictEqual(plantOf(plant));
      expect(await app.store.size()).toBe(1);
      // A neighbour id is a different plant: nothing was rounded onto it.
      if (id < INT64_MAX) expect(await app.store.get(id + 1n)).toBeUndefined();
      if (id > INT64_MIN) expect(await app.store.get(id - 1n)).toBeUndefined();
    }),
    settings(500),
  );
});

const marker = fc.stringMatching(/^[0-9a-f]{14}$/).map((s) => `mk${s}`);

test("never echoes unknown fields: the answer and the stored plant hold the spec's fields only", async () => {
  await fc.assert(
    fc.asyncProperty(
      anyInt64,
      fc.dictionary(
        marker,
        fc.oneof(marker, fc.jsonValue({ maxDepth: 2 }), fc.dictionary(marker, marker, { maxKeys: 2 })),
        { minKeys: 1, maxKeys: 5 },
      ),
      fc.boolean(),
      async (id, extra, extraFirst) => {
        const app = newApp();
        const plant = fullPlant(id);
        const known = plantBody(plant).slice(1, -1);
        const unknown = Object.entries(extra)
          .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join(',');
        const answer = await post(app, extraFirst ? `{${unknown},${known}}` : `{${known},${unknown}}`);
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.body)).toStrictEqual(plantAnswer(plant));
        expect(answer.body).not.toMatch(/mk[0-9a-f]{14}/);
        expect({ ...(await app.store.get(id)) }).toStrictEqual(plantOf(plant));
        const stored = await app.store.list();
        expect(JSON.stringify(stored, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toMatch(
          /mk[0-9a-f]{14}/,
        );
      },
    ),
    settings(300),
  );
});

/** A request whose token, unknown fields and (sometimes) name and tag carry marker strings. */
const markedRequest = fc.record({
  tokenMarker: marker,
  auth: fc.constantFrom('right', 'wrong', 'basic', 'bare', 'none'),
  idRaw: fc.oneof(
    idNumberText,
    marker.map((m) => JSON.stringify(m)),
  ),
  name: fc.oneof(
    marker.map((m) => JSON.stringify(m)),
    marker.map((m) => `{"${m}":1}`),
    fc.constant('7'),
  ),
  tag: fc.option(
    marker.map((m) => JSON.stringify(m)),
    { nil: undefined },
  ),
  extraKey: marker,
  extraValue: marker,
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
});

test('never puts the token or a string of the request body into any answer', async () => {
  await fc.assert(
    fc.asyncProperty(markedRequest, async (r) => {
      const token = `tok-${r.tokenMarker}`;
      const app = createPlantStoreApp({ tokens: [token] });
      const bodyText = `{"id":${r.idRaw},"name":${r.name}${r.tag === undefined ? '' : `,"tag":${r.tag}`},${JSON.stringify(r.extraKey)}:${JSON.stringify(r.extraValue)}}`;
      const authorization = {
        right: `Bearer ${token}`,
        wrong: `Bearer ${r.extraValue}`,
        basic: `Basic ${r.tokenMarker}`,
        bare: `Bearer ${token}`.replace('Bearer ', 'Bearer  '),
        none: undefined,
      }[r.auth];
      const headers: Record<string, string> = { 'content-type': r.contentType };
      if (authorization !== undefined) headers.authorization = authorization;
      const answer = await app.fetch(new Request(URL_, { method: 'POST', headers, body: bodyText })).then(answerOf);
      const parsed = expectWellFormed(answer);
      const everything = `${answer.body}\n${Object.entries(answer.headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}`;
      // Only the plant's own strings may come back, in a 200.
      const allowed = answer.status === 200 ? Object.values(parsed).filter((v) => typeof v === 'string') : [];
      for (const m of everything.match(/mk[0-9a-f]{14}/g) ?? []) {
        expect(
          allowed.some((a) => a?.includes(m)),
          `${m} leaked into ${everything}`,
        ).toBe(true);
      }
      expect(everything).not.toContain(token);
    }),
    settings(500),
  );
});

/** Header text as a client may send it: any byte but NUL, CR and LF, as latin1 characters. */
const headerText = (maxLength: number) =>
  fc
    .array(
      fc.integer({ min: 1, max: 255 }).filter((c) => c !== 10 && c !== 13),
      { maxLength },
    )
    .map((codes) => String.fromCharCode(...codes).trim());

test('answers any method, path, authorization and content type with a code from the table, never a 500', async () => {
  const app = newApp();
  const request = fc.record({
    method: fc.constantFrom('POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'X-CUSTOM'),
    path: fc.oneof(
      fc.constantFrom(
        '/plants',
        '/plants/',
        '//plants',
        '/PLANTS',
        '/plants/1',
        '/',
        '/plants%2f',
        '/pl%61nts',
        '/./plants',
        '/x/../plants',
      ),
      fc.webPath(),
    ),
    query: fc.option(fc.webQueryParameters(), { nil: undefined }),
    authorization: fc.oneof(
      fc.constant(`Bearer ${TOKEN}`),
      fc.constantFrom('bearer', 'BEARER', 'Bearer', 'Basic', 'Bearer\t', 'Token').map((s) => `${s} ${TOKEN}`),
      headerText(40).map((t) => `Bearer ${t}`),
      headerText(60),
      fc.constant(undefined),
    ),
    contentType: fc.oneof(
      fc.constantFrom('application/json', 'APPLICATION/JSON;charset=UTF-8', undefined),
      headerText(40),
    ),
  });
  await fc.assert(
    fc.asyncProperty(request, fc.integer({ min: 0, max: 2 ** 40 }), async (r, id) => {
      const headers: Record<string, string> = {};
      if (r.authorization !== undefined) headers.authorization = r.authorization;
      if (r.contentType !== undefined) headers['content-type'] = r.contentType;
      const hasBody = r.method !== 'GET' && r.method !== 'HEAD';
      const answer = await app
        .fetch(
          new Request(`http://plant.test${r.path}${r.query ? `?${r.query}` : ''}`, {
            method: r.method,
            headers,
            ...(hasBody && { body: `{"id":${id},"name":"n"}` }),
          }),
        )
        .then(answerOf);
      const parsed = expectWellFormed(answer);
      expect(answer.status).not.toBe(500);
      if (parsed.error === 40101 || parsed.error === 40102) {
        expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="plant-store"/);
      }
      if (parsed.error === 40501) expect(answer.headers.allow).toMatch(/POST/);
      if (r.authorization?.includes(TOKEN)) expect(answer.body).not.toContain(TOKEN);
    }),
    settings(600),
  );
});
