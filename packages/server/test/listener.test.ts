// createPlantStoreListener in a node:http app of its own, mounted under a path beside other routes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { createMemoryStore } from '@plant-store/core';
import { createPlantStoreListener } from '../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const post = (url: string, token: string, body: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });

it('serves the API under the path it is mounted at, and leaves the app its other routes', async () => {
  const plants = createPlantStoreListener({ basePath: '/plant-api' });
  const base = await listen((req, res) => {
    if (req.url?.startsWith('/plant-api/')) return plants(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('my own route');
  });
  const [token] = plants.tokens as string[];
  const created = await post(`${base}/plant-api/plants`, token!, '{"id":9007199254740993,"name":"Fern"}');
  expect(created.status).toBe(200);
  expect(await created.json()).toEqual({ name: 'Fern' });
  expect(await plants.store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Fern' });
  expect(await (await fetch(`${base}/health`)).text()).toBe('my own route');
  // Under the mount, every rule of the service holds: here a wrong token.
  const refused = await post(`${base}/plant-api/plants`, 'wrong', '{"id":1,"name":"x"}');
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ error: 40102 });
});

it('matches on originalUrl when a router (Express) strips the mount path from url', async () => {
  const store = createMemoryStore();
  const plants = createPlantStoreListener({ basePath: '/v1', tokens: ['secret'], store });
  const base = await listen((req, res) => {
    // What Express's app.use('/v1', handler) does to the request before calling the handler.
    Object.assign(req, { originalUrl: req.url, url: req.url!.slice('/v1'.length) });
    plants(req, res);
  });
  expect((await post(`${base}/v1/plants`, 'secret', '{"id":1,"name":"Oak"}')).status).toBe(200);
  expect(await store.size()).toBe(1);
  expect(plants.store).toBe(store);
});

it('throws on bad options when it is created, before any request', () => {
  expect(() => createPlantStoreListener({ tokens: ['not a token'] })).toThrow(TypeError);
  expect(() => createPlantStoreListener({ basePath: 'a?b' })).toThrow(TypeError);
});
