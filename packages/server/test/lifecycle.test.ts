// Starting (options, defaults, addresses) and stopping (requests in flight finish, the store is
// flushed) the server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, type PlantStore } from '@plant-store/core';
import { afterEach, expect, it } from 'vitest';
import { openFileStore } from '@plant-store/store-file';
import { startPlantStoreServer } from '../src/index.js';
import { assembleServer } from '../src/internal/assemble.js';
import { RawConnection, TOKEN, connectionRefused, createPlant, postHead, serve } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

it('listens on 127.0.0.1 and reports the port it got for port 0', async () => {
  const server = await serve();
  expect(server.host).toBe('127.0.0.1');
  expect(server.port).toBeGreaterThan(0);
  expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
});

it('includes the base path in its url, the way the core matches it', async () => {
  const server = await serve({ basePath: 'api/' });
  expect(server.url).toBe(`http://127.0.0.1:${server.port}/api`);
  expect((await createPlant(server, '{"id":1,"name":"a"}')).status).toBe(200);
});

// Regression: the printed URL of `/café` answered 404, since clients send `/caf%C3%A9`.
it('prints a base path with non-ASCII letters as clients send it, and answers there', async () => {
  const server = await serve({ basePath: '/café' });
  expect(server.url).toBe(`http://127.0.0.1:${server.port}/caf%C3%A9`);
  expect((await createPlant(server, '{"id":1,"name":"a"}')).status).toBe(200);
});

// Regression: the server normalized the base path with its own regex, which turned `//api` into
// `/api` while the core matches `//api/plants`: the printed URL answered 404.
it('names the url a base path with a doubled leading slash really answers at', async () => {
  const server = await serve({ basePath: '//api' });
  expect(server.url).toBe(`http://127.0.0.1:${server.port}//api`);
  expect((await createPlant(server, '{"id":1,"name":"a"}')).status).toBe(200);
});

it('makes one random token when none is given, accepts it and refuses others', async () => {
  const server = await startPlantStoreServer({ port: 0 });
  try {
    expect(server.tokens).not.toBe('any');
    const [token] = server.tokens as readonly string[];
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const post = (bearer: string) =>
      fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: '{"id":1,"name":"a"}',
      });
    expect((await post(token ?? '')).status).toBe(200);
    expect((await post('guess')).status).toBe(401);
  } finally {
    await server.close();
  }
});

it('makes a different token for each server', async () => {
  const [a, b] = await Promise.all([serve({ tokens: undefined }), serve({ tokens: undefined })]);
  expect(a?.tokens).not.toEqual(b?.tokens);
});

it('accepts every bearer token only when told tokens: "any"', async () => {
  const server = await serve({ tokens: 'any' });
  const answer = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: 'Bearer anything', 'content-type': 'application/json' },
    body: '{"id":1,"name":"a"}',
  });
  expect(server.tokens).toBe('any');
  expect(answer.status).toBe(200);
});

it('rejects with EADDRINUSE when the port is taken', async () => {
  const first = await serve();
  await expect(serve({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
});

it('refuses a port outside 0 to 65535', async () => {
  await expect(startPlantStoreServer({ port: 70_000 })).rejects.toThrow(/port/);
});

it('writes to the store it is given and leaves that store open after close', async () => {
  const store = createMemoryStore();
  const server = await serve({ store });
  await createPlant(server, '{"id":9007199254740993,"name":"Exact"}');
  await server.close();
  expect(await store.get(9007199254740993n)).toEqual({ id: 9007199254740993n, name: 'Exact' });
});

it('keeps plants in a file store across restarts of the server', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-server-'));
  dirs.push(dir);
  const path = join(dir, 'plants.log');
  const firstStore = await openFileStore({ path });
  const first = await serve({ store: firstStore });
  expect((await createPlant(first, '{"id":1,"name":"Fern"}')).status).toBe(200);
  await first.close();
  await firstStore.close();
  const secondStore = await openFileStore({ path });
  const second = await serve({ store: secondStore });
  expect(await second.store.get(1n)).toEqual({ id: 1n, name: 'Fern' });
  // The same plant replays, a different one conflicts: the file is the store.
  expect((await createPlant(second, '{"id":1,"name":"Fern"}')).status).toBe(200);
  expect((await createPlant(second, '{"id":1,"name":"Oak"}')).status).toBe(400);
  await second.close();
  expect(await secondStore.size()).toBe(1);
  await secondStore.close();
});

it('leaves a store it was given open when its start fails on bad options, so the caller can start again', async () => {
  const store = createMemoryStore();
  await expect(startPlantStoreServer({ port: 0, tokens: ['not a token'], store })).rejects.toThrow(TypeError);
  await expect(startPlantStoreServer({ port: 0, tokens: [TOKEN], basePath: 'a?b', store })).rejects.toThrow(TypeError);
  await store.checkHealth();
  const server = await serve({ store });
  expect((await createPlant(server, '{"id":1,"name":"Fern"}')).status).toBe(200);
});

it('finishes a request in flight with 200 while closing, and refuses new connections', async () => {
  const server = await serve();
  const client = await RawConnection.open(server.port);
  const body = '{"id":1,"name":"In flight"}';
  // 100-continue proves the core is reading this body before close() starts.
  await client.write(postHead([`Content-Length: ${body.length}`, 'Expect: 100-continue']));
  expect(await client.waitForText('100 Continue')).toBe(true);
  const closing = server.close();
  expect(await connectionRefused(server.port)).toBe(true);
  await client.write(body);
  const [answer] = await client.waitForAnswers(1);
  const closed = await client.waitForClose();
  await closing;
  client.destroy();
  expect(answer?.status).toBe(200);
  expect(answer?.headers['connection']).toBe('close');
  expect(closed).toBe(true);
});

it('closes idle keep-alive connections when closing, instead of waiting for their timeout', async () => {
  const server = await serve({ timeouts: { keepAliveTimeout: 60_000 } });
  const client = await RawConnection.open(server.port);
  await client.write('GET /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await client.waitForAnswers(1);
  await server.close();
  expect(await client.waitForClose()).toBe(true);
  client.destroy();
});

it('leaves a store it was given open: its owner closes it', async () => {
  let closes = 0;
  const inner = createMemoryStore();
  const counting: PlantStore = { ...inner, close: async () => void closes++ };
  const server = await startPlantStoreServer({ port: 0, tokens: [TOKEN], store: counting });
  await server.close();
  expect(closes).toBe(0);
});

it('resolves both calls when close is called twice, and closes the memory store it made', async () => {
  const server = await startPlantStoreServer({ port: 0, tokens: [TOKEN] });
  await Promise.all([server.close(), server.close()]);
  await expect(server.store.checkHealth()).rejects.toThrow(/closed/);
});

it('owns the store the CLI opens: closed when the start fails and after the drain; a bad token file fails before it opens', async () => {
  const taken = await serve();
  const opened: string[] = [];
  const closed: string[] = [];
  const openStore = (name: string) => async () => {
    opened.push(name);
    return { store: { ...createMemoryStore(), close: async () => void closed.push(name) }, banner: `Data: ${name}` };
  };
  const missing = join(tmpdir(), 'plant-store-no-such-token-file');
  await expect(
    assembleServer({ options: { port: 0, tokenFile: missing }, openStore: openStore('token file') }),
  ).rejects.toThrow(/cannot read the token file/);
  await expect(
    assembleServer({ options: { port: 0, basePath: 'a?b' }, openStore: openStore('bad options') }),
  ).rejects.toThrow(TypeError);
  await expect(
    assembleServer({ options: { port: taken.port }, openStore: openStore('taken port') }),
  ).rejects.toMatchObject({
    code: 'EADDRINUSE',
  });
  const { server, storeBanner } = await assembleServer({
    options: { port: 0, tokens: [TOKEN] },
    openStore: openStore('served'),
  });
  expect(storeBanner).toBe('Data: served');
  expect((await createPlant(server, '{"id":1,"name":"Fern"}')).status).toBe(200);
  expect(closed).toEqual(['bad options', 'taken port']);
  await server.close();
  expect(opened).toEqual(['bad options', 'taken port', 'served']);
  expect(closed).toEqual(['bad options', 'taken port', 'served']);
});
