// A spec that grows, as a maintainer grows it: optional fields of every supported kind added to a copy
// of openapi.yaml (to Plant, answered; and an int64 to NewPlant's own fields, kept only), then `npm run
// generate && npm run build` in that copy and no other file edited. The grown build's client, server
// (memory, file, PostgreSQL) and mocks must carry every field, refuse a value outside its rule with the
// 40002 naming it, and take another value under a stored id as a 40003. Against this repository's own
// build ("the older one"): the older server refuses the newer's file and changes none of its bytes, and
// both serve on one PostgreSQL table at once, the newer one having added its columns (a rolling
// upgrade), and after a rollback.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../packages/server/test/cli-process.js';
import { type EvolvedRepo, evolveRepo } from '../support/evolved-repo.js';
import { openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { keepAliveAgent, sendCreate, startServers, TOKEN } from './traffic.js';

const ADDED = {
  plant: {
    height: { description: 'Height in metres', type: 'number', minimum: 0, exclusiveMaximum: 200 },
    leaves: { description: 'How many leaves', type: 'integer', format: 'int32', minimum: 1, maximum: 100_000 },
    potted: { description: 'Whether it grows in a pot', type: 'boolean' },
    light: { description: 'The light it needs', type: 'string', enum: ['shade', 'partial', 'sun'] },
    code: {
      description: 'A nursery code',
      type: 'string',
      pattern: '^[A-Z]{2}-[0-9]+$',
      maxLength: 12,
      examples: ['AB-1', 'CD-42'],
    },
  },
  newPlant: { batch: { description: 'The batch it came from', type: 'integer', format: 'int64', minimum: 0 } },
};
type Added = keyof typeof ADDED.plant | keyof typeof ADDED.newPlant;

/** A plant with every field, an int64 id and batch beyond 2^53; and what the service answers for it. */
const FULL = {
  id: 9007199254740993n,
  name: 'Fern',
  tag: 'shade',
  height: 1.5,
  leaves: 3,
  potted: true,
  light: 'sun',
  code: 'AB-12',
  batch: 9007199254740995n,
};
const { id: _id, batch: _batch, ...ANSWER } = FULL;
/** Another valid value of each added field: under a stored id, a conflict. */
const OTHER: Record<Added, unknown> = { height: 2, leaves: 4, potted: false, light: 'shade', code: 'AB-13', batch: 1n };
/** Values of the right JSON type that each field's rule refuses, and values of another type. */
const OUTSIDE: [Added, unknown][] = [
  ['height', -0.5],
  ['height', 200],
  ['leaves', 0],
  ['leaves', 100_001],
  ['light', 'moon'],
  ['code', 'ab-1'],
  ['code', 'AB-1234567890'],
  ['batch', -1],
];
const WRONG_TYPE: [Added, unknown][] = [
  ['height', 'tall'],
  ['leaves', 1.5],
  ['potted', 'yes'],
  ['light', 3],
  ['code', null],
];

interface Client {
  createPlant(token: string, plant: object, options: { baseUrl: string; retries?: number }): Promise<unknown>;
}
interface Validate {
  validateNewPlant(value: unknown): { value?: unknown; issues?: { message: string; path: string[] }[] };
}

let newer: EvolvedRepo;
let client: Client;
let validate: Validate;
let messages: Record<string, string>;
let db: TestDatabase;
const dirs: string[] = [];

beforeAll(async () => {
  [newer, db] = await Promise.all([evolveRepo(ADDED), openTestDatabase()]);
  client = await newer.load<Client>('client');
  validate = await newer.load<Validate>('client', 'validate.js');
  messages = (await newer.load<{ PLANT_MESSAGES: Record<string, string> }>('core')).PLANT_MESSAGES;
}, 600_000);
afterAll(async () => {
  newer?.remove();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await db?.close();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-evolution-'));
  dirs.push(dir);
  return dir;
}

/** A JSON body with bigints written as their digits. */
function body(plant: object): string {
  return JSON.stringify(plant, (_, value) => (typeof value === 'bigint' ? `\u0000${value}\u0000` : value)).replace(
    /"\\u0000(-?\d+)\\u0000"/g,
    '$1',
  );
}

/** The grown client against a server at `origin`, through every rule of the added fields; `id` is the plant's. */
async function carriesEveryField(origin: string, id: bigint): Promise<void> {
  const options = { baseUrl: origin, retries: 0 };
  const plant = { ...FULL, id };
  expect(await client.createPlant(TOKEN, plant, options)).toEqual(ANSWER);
  // The same plant again is a replay; another value of any one field under its id is a 40003.
  expect(await client.createPlant(TOKEN, plant, options)).toEqual(ANSWER);
  for (const [field, value] of Object.entries(OTHER)) {
    await expect(client.createPlant(TOKEN, { ...plant, [field]: value }, options), field).rejects.toMatchObject({
      code: 40003,
    });
  }
  // An absent optional field differs from a present one.
  const { height: _height, ...withoutHeight } = plant;
  await expect(client.createPlant(TOKEN, withoutHeight, options)).rejects.toMatchObject({ code: 40003 });
  for (const [field, value] of [...OUTSIDE, ...WRONG_TYPE]) {
    const candidate = { ...FULL, id: id + 1n, [field]: value };
    // Sent as raw JSON (the client refuses a value of another type before sending).
    const answer = await fetch(`${origin}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body(candidate),
    });
    const message = messages[`${field}Invalid`];
    expect([field, value, answer.status, await answer.json()]).toEqual([field, value, 400, { error: 40002, message }]);
    // The client's validator says the same before anything is sent.
    expect(validate.validateNewPlant(candidate).issues, field).toEqual([{ code: 40002, message, path: [field] }]);
  }
  // Refused values stored nothing: the id is still free.
  expect(await client.createPlant(TOKEN, { id: id + 1n, name: 'Bare' }, options)).toEqual({ name: 'Bare' });
}

it('carries the added fields through the grown client, server on memory and answer', async () => {
  const [server] = await startServers([], 1, newer.cli);
  await carriesEveryField(server!.origin, 10n);
}, 60_000);

it('keeps the added fields on a file across a restart; the older build refuses that file and changes none of its bytes', async () => {
  const data = join(tempDir(), 'plants.log');
  const [first] = await startServers(['--data', data], 1, newer.cli);
  await carriesEveryField(first!.origin, 20n);
  first!.run.child.kill('SIGTERM');
  await first!.run.exited;
  const before = createHash('sha256').update(readFileSync(data)).digest('hex');
  // This repository's build knows none of the added fields.
  const older = run(['--data', data, '--port', '0', '--host', '127.0.0.1', '--token', TOKEN]);
  expect(await older.exited).not.toBe(0);
  expect(older.stderr).toMatch(/height|leaves|potted|light|code|batch/);
  expect(createHash('sha256').update(readFileSync(data)).digest('hex')).toBe(before);
  // The newer build serves it again with every plant and every field.
  const [again] = await startServers(['--data', data], 1, newer.cli);
  const options = { baseUrl: again!.origin, retries: 0 };
  expect(await client.createPlant(TOKEN, { ...FULL, id: 20n }, options)).toEqual(ANSWER);
  expect(await client.createPlant(TOKEN, { id: 21n, name: 'Bare' }, options)).toEqual({ name: 'Bare' });
  await expect(client.createPlant(TOKEN, { ...FULL, id: 20n, leaves: 4 }, options)).rejects.toMatchObject({
    code: 40003,
  });
}, 120_000);

it('serves an older and a newer server on one PostgreSQL table at once, and after a rollback', async () => {
  const table = db.table();
  const flags = ['--database', db.url, '--database-schema', db.schema, '--database-table', table];
  const [older] = await startServers(flags, 1);
  const agent = keepAliveAgent();
  expect(await sendCreate(agent, older!.origin, '{"id":1,"name":"Old","tag":"t"}')).toMatchObject({ status: 200 });
  // Without DDL rights the newer server names the statement that adds its columns.
  const refused = run([...flags, '--database-create-table', 'no', '--port', '0', '--token', TOKEN], {}, newer.cli);
  expect(await refused.exited).not.toBe(0);
  expect(refused.stderr).toMatch(/ALTER TABLE .* ADD COLUMN IF NOT EXISTS/);
  // With them, two newer servers starting at once add the columns; the older one keeps serving throughout.
  const newers = await startServers(flags, 2, newer.cli);
  await carriesEveryField(newers[0]!.origin, 30n);
  await carriesEveryField(newers[1]!.origin, 40n);
  // The older server on the wider table: its plants and the newer's, as far as it knows them.
  expect(await sendCreate(agent, older!.origin, '{"id":2,"name":"Old 2"}')).toMatchObject({
    status: 200,
    body: '{"name":"Old 2"}',
  });
  expect(await sendCreate(agent, older!.origin, `{"id":30,"name":"Fern","tag":"shade"}`)).toMatchObject({
    status: 200,
    body: '{"name":"Fern","tag":"shade"}',
  });
  expect(await sendCreate(agent, older!.origin, `{"id":30,"name":"Oak","tag":"shade"}`)).toMatchObject({
    status: 400,
  });
  // The newer servers read the older one's plants: the added fields absent.
  const options = { baseUrl: newers[0]!.origin, retries: 0 };
  expect(await client.createPlant(TOKEN, { id: 2n, name: 'Old 2' }, options)).toEqual({ name: 'Old 2' });
  // A rollback: the newer servers stop, the older one serves on; started again, every field is there.
  for (const each of newers) each.run.child.kill('SIGTERM');
  await Promise.all(newers.map((each) => each.run.exited));
  expect(await sendCreate(agent, older!.origin, '{"id":3,"name":"Old 3"}')).toMatchObject({ status: 200 });
  const [back] = await startServers(flags, 1, newer.cli);
  const again = { baseUrl: back!.origin, retries: 0 };
  expect(await client.createPlant(TOKEN, { ...FULL, id: 30n }, again)).toEqual(ANSWER);
  expect(await client.createPlant(TOKEN, { id: 3n, name: 'Old 3' }, again)).toEqual({ name: 'Old 3' });
  agent.destroy();
}, 180_000);

it('carries the added fields through the grown mocks', async () => {
  const msw = await newer.load<{
    createPlantStoreHandlers(options: object): { handlers: never[]; store: { list(): Promise<unknown[]> } };
    makePlants(count: number): Record<string, unknown>[];
  }>('msw');
  const core = await newer.load<{ toStoredPlant(value: unknown): unknown }>('core');
  const seeded = msw.makePlants(200);
  // makePlants fills the added fields within their rules (the key and the fields it was given examples of).
  for (const plant of seeded) expect(core.toStoredPlant(plant)).toEqual(plant);
  for (const field of Object.keys(ADDED.plant))
    expect(
      seeded.some((plant) => field in plant),
      field,
    ).toBe(true);
  const mocks = msw.createPlantStoreHandlers({ baseUrl: 'http://mocks.test', initialPlants: seeded.slice(0, 5) });
  const server = setupServer(...mocks.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  try {
    await carriesEveryField('http://mocks.test', 50n);
    expect(await mocks.store.list()).toContainEqual({ ...FULL, id: 50n });
  } finally {
    server.close();
  }
}, 60_000);

it("keeps the grown client's bundles within their budgets, which allow for each added field", async () => {
  const sizes = (await import(join(newer.root, 'packages', 'client', 'scripts', 'bundle-size.mjs'))) as {
    measureBundleSize(): Promise<{ gzip: number; budget: number }>;
    measureValidateBundleSize(): Promise<{ gzip: number; budget: number }>;
  };
  for (const size of [await sizes.measureBundleSize(), await sizes.measureValidateBundleSize()]) {
    expect(size.budget).toBeGreaterThan(1024);
    expect(size.gzip, JSON.stringify(size)).toBeLessThanOrEqual(size.budget);
  }
}, 60_000);
