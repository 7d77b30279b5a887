// createPlantStoreListener mounted in Express 5 and Fastify 5 as their users mount things: under a
// path, behind the app's body parsers, through @plant-store/server/fastify. Real sockets on 127.0.0.1.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { createPlantStoreListener } from '../src/index.js';
import { plantStorePlugin } from '../src/fastify.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function listenExpress(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function listenFastify(app: FastifyInstance): Promise<string> {
  closers.push(() => app.close());
  return app.listen({ port: 0, host: '127.0.0.1' });
}

const post = (url: string, body: string, token = 'secret', contentType = 'application/json') =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });

/** The contract's create, replay and conflict, with an id that only exact parsing keeps (2^53+1). */
async function expectCreateReplayConflict(url: string, listener: { store: { get(id: bigint): Promise<unknown> } }) {
  const created = await post(url, '{"id":9007199254740993,"name":"Fern","tag":"shade"}');
  expect(created.status).toBe(200);
  expect(await created.json()).toEqual({ name: 'Fern', tag: 'shade' });
  const replayed = await post(url, '{"tag":"shade","name":"Fern","id":9007199254740993}');
  expect(replayed.status).toBe(200);
  expect(await replayed.json()).toEqual({ name: 'Fern', tag: 'shade' });
  const conflict = await post(url, '{"id":9007199254740993,"name":"Elm"}');
  expect(conflict.status).toBe(400);
  expect(await conflict.json()).toMatchObject({ error: 40003 });
  // A double would have stored 2^53, not 2^53+1.
  expect(await listener.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Fern', tag: 'shade' });
  expect(await listener.store.get(9007199254740992n)).toBeUndefined();
}

/** The app's own JSON route still parses its body, and an unknown path under the mount is the service's 404. */
async function expectAppRouteBeside(base: string, mount: string) {
  const note = await post(`${base}/notes`, '{"text":"water the fern"}');
  expect(await note.json()).toEqual({ received: { text: 'water the fern' } });
  const unknown = await post(`${base}${mount}/other`, '{}');
  expect(unknown.status).toBe(404);
  expect(await unknown.json()).toMatchObject({ error: 40401 });
}

it('serves under the path Express mounts it at, with no basePath, beside a route behind express.json()', async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'] });
  const app = express();
  app.use('/plant-api', plants);
  app.use(express.json());
  app.post('/notes', (req, res) => {
    res.json({ received: req.body });
  });
  const base = await listenExpress(app);
  await expectCreateReplayConflict(`${base}/plant-api/plants`, plants);
  await expectAppRouteBeside(base, '/plant-api');
});

it('serves under an Express mount when basePath repeats the mount path, and when basePath is under the mount', async () => {
  const repeated = createPlantStoreListener({ tokens: ['secret'], basePath: '/plant-api' });
  const under = createPlantStoreListener({ tokens: ['secret'], basePath: '/v1' });
  const app = express();
  app.use('/plant-api', repeated);
  app.use('/other', under);
  const base = await listenExpress(app);
  expect((await post(`${base}/plant-api/plants`, '{"id":1,"name":"Oak"}')).status).toBe(200);
  expect((await post(`${base}/other/v1/plants`, '{"id":1,"name":"Oak"}')).status).toBe(200);
  expect(await repeated.store.size()).toBe(1);
  expect(await under.store.size()).toBe(1);
});

it('answers 500 in the Error shape naming the fix when express.json() read the body first, logs it and stores nothing', async () => {
  const lines: string[] = [];
  const plants = createPlantStoreListener({ tokens: ['secret'], log: { write: (line) => lines.push(line) } });
  const app = express();
  app.use(express.json());
  app.use('/plant-api', plants);
  const base = await listenExpress(app);
  const res = await post(`${base}/plant-api/plants`, '{"id":1,"name":"Fern"}');
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'message']);
  expect(body.error).toBe(50001);
  expect(body.message).toMatch(/was read before the Plant Store listener/);
  expect(body.message).toMatch(/mount the listener before any body parser/);
  expect(await plants.store.size()).toBe(0);
  const logged = lines.map((line) => JSON.parse(line));
  expect(logged.find((l) => l.event === 'body-already-read')).toMatchObject({
    level: 'error',
    requestId: res.headers.get('x-request-id'),
  });
  // A refusal that needs no body is unchanged: the token is checked before any read.
  expect((await post(`${base}/plant-api/plants`, '{"id":1,"name":"Fern"}', 'wrong')).status).toBe(401);
});

it('uses the bytes express.raw() and express.text() kept, so ids stay exact', async () => {
  const fromRaw = createPlantStoreListener({ tokens: ['secret'] });
  const fromText = createPlantStoreListener({ tokens: ['secret'] });
  const app = express();
  app.use('/raw', express.raw({ type: '*/*' }), fromRaw);
  app.use('/text', express.text({ type: '*/*' }), fromText);
  const base = await listenExpress(app);
  await expectCreateReplayConflict(`${base}/raw/plants`, fromRaw);
  await expectCreateReplayConflict(`${base}/text/plants`, fromText);
});

it('uses req.rawBody, as express.json({ verify }) apps keep it, when the parser read the body first', async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'] });
  const app = express();
  app.use(
    express.json({
      verify: (req, _res, bytes) => {
        Object.assign(req, { rawBody: bytes });
      },
    }),
  );
  app.use('/plant-api', plants);
  const base = await listenExpress(app);
  await expectCreateReplayConflict(`${base}/plant-api/plants`, plants);
});

it("answers 413 when the kept body is over the listener's bodyLimit", async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'], bodyLimit: 64 });
  const app = express();
  app.use(express.raw({ type: '*/*' }));
  app.use(plants);
  const base = await listenExpress(app);
  const res = await post(`${base}/plants`, JSON.stringify({ id: 1, name: 'x'.repeat(100) }));
  expect(res.status).toBe(413);
  expect(await res.json()).toMatchObject({ error: 41301 });
  expect(await plants.store.size()).toBe(0);
});

it('serves under a Fastify prefix through plantStorePlugin, beside JSON routes of the app', async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'] });
  const app = Fastify();
  await app.register(plantStorePlugin, { prefix: '/plant-api', listener: plants });
  app.post('/notes', async (request) => ({ received: request.body }));
  const base = await listenFastify(app);
  await expectCreateReplayConflict(`${base}/plant-api/plants`, plants);
  await expectAppRouteBeside(base, '/plant-api');
  // The service's own rules under the prefix: a media type it does not take is its 415, not Fastify's.
  const text = await post(`${base}/plant-api/plants`, 'x', 'secret', 'text/plain');
  expect(text.status).toBe(415);
  expect(await text.json()).toMatchObject({ error: 41501 });
});

it("serves through plantStorePlugin without a prefix at the listener's basePath, leaving the app its 404", async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'], basePath: '/api' });
  const app = Fastify();
  await app.register(plantStorePlugin, { listener: plants });
  const base = await listenFastify(app);
  expect((await post(`${base}/api/plants`, '{"id":5,"name":"Ivy"}')).status).toBe(200);
  const elsewhere = await fetch(`${base}/elsewhere`);
  expect(elsewhere.status).toBe(404);
  expect(await elsewhere.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
});

it('refuses to register plantStorePlugin without a listener', async () => {
  const app = Fastify();
  // @ts-expect-error the listener is required
  app.register(plantStorePlugin, { prefix: '/plant-api' });
  await expect(app.ready()).rejects.toThrow(/plantStorePlugin needs \{ listener \}/);
});

it('answers 500 naming the fix when a hijacked Fastify route hands over a body Fastify already parsed', async () => {
  const plants = createPlantStoreListener({ tokens: ['secret'] });
  const app = Fastify();
  app.post('/plants', (request, reply) => {
    reply.hijack();
    plants(request.raw, reply.raw);
  });
  const base = await listenFastify(app);
  const res = await post(`${base}/plants`, '{"id":1,"name":"Fern"}');
  expect(res.status).toBe(500);
  expect(await res.json()).toMatchObject({
    error: 50001,
    message: expect.stringMatching(/@plant-store\/server\/fastify/),
  });
});
