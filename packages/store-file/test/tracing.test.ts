// The file store's batch spans, through a real OpenTelemetry SDK and the core's app: the creates of
// one group commit share one INTERNAL `plant_store.file.write` span, the child of the first request's
// insert span and linked to each, written with that span active and instrumentations silent; a write
// or sync that fails marks it; with no SDK registered there is none.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createPlantStoreApp, type PlantStore, traceLink } from '@plant-store/core';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { FileStoreEngine } from '../src/internal/file-store-engine.js';
import { type FileStoreIo, NODE_IO } from '../src/internal/file-store-io.js';
import { registerTracing, type TestTracing } from '../../../test/support/tracing-sdk.js';

const TOKEN = 'tracing-test-token';

let dir: string;
let file: string;
let tracing: TestTracing | undefined;
const opened: FileStoreEngine[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-file-store-tracing-'));
  file = path.join(dir, 'plants.log');
});

afterEach(async () => {
  tracing?.disable();
  tracing = undefined;
  for (const store of opened.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A store on the test's file writing through `io`, without zero-filling ahead (every write is a batch's). */
async function open(io: FileStoreIo = NODE_IO, dsync = true): Promise<FileStoreEngine> {
  const store = await FileStoreEngine.open(file, io, { dsync, preallocate: 0 });
  opened.push(store);
  return store;
}

/** The app's answers to creates of `ids`, all sent at once. */
function createAll(store: PlantStore, ids: readonly number[]): Promise<number[]> {
  const app = createPlantStoreApp({ store, tokens: [TOKEN] });
  return Promise.all(
    ids.map(async (id) => {
      const response = await app.fetch(
        new Request('http://localhost/plants', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id, name: `plant ${id}` }),
        }),
      );
      return response.status;
    }),
  );
}

const named = (name: string) => (tracing?.spans() ?? []).filter((span) => span.name === name);
const spanIds = (spans: readonly { spanContext(): { spanId: string } }[]) =>
  spans.map((span) => span.spanContext().spanId).sort();

test('gives concurrent creates one INTERNAL write span, the child of the first insert span and linked to each', async () => {
  tracing = registerTracing();
  const store = await open();
  const ids = [1, 2, 3, 4, 5, 6, 7, 8];
  expect(await createAll(store, ids)).toEqual(ids.map(() => 200));
  expect(store.stats()).toMatchObject({ records: 8, writes: 1 });

  const inserts = named('plant_store.insert');
  const writes = named('plant_store.file.write');
  expect(inserts).toHaveLength(8);
  expect(writes).toHaveLength(1);
  const write = writes[0]!;
  expect(write.kind).toBe(SpanKind.INTERNAL);
  expect(write.attributes).toEqual({ 'plant_store.batch.size': 8 });
  expect(write.status.code).toBe(SpanStatusCode.UNSET);
  expect(write.links.map((link) => link.context.spanId).sort()).toEqual(spanIds(inserts));
  const first = write.links[0]!.context;
  expect(write.parentSpanContext?.spanId).toBe(first.spanId);
  expect(write.spanContext().traceId).toBe(first.traceId);
});

test('writes with the batch span active and instrumentations silent, so an fs instrumentation records nothing of its own', async () => {
  tracing = registerTracing();
  const seen: { active: string | undefined; recording: boolean }[] = [];
  const store = await open({
    ...NODE_IO,
    write: (fd, buf, offset, length, position) => {
      // What an instrumentation of node:fs would do here: start a span under the active one.
      const probe = trace.getTracer('fs-probe').startSpan('fs.write');
      seen.push({ active: trace.getActiveSpan()?.spanContext().spanId, recording: probe.isRecording() });
      probe.end();
      return NODE_IO.write(fd, buf, offset, length, position);
    },
  });
  expect(await createAll(store, [1, 2, 3])).toEqual([200, 200, 200]);
  const [write] = named('plant_store.file.write');
  expect(seen).toEqual([{ active: write?.spanContext().spanId, recording: false }]);
  expect(named('fs.write')).toEqual([]);
});

test('marks the write span failed when the sync fails, with the error the creates are answered with', async () => {
  tracing = registerTracing();
  let syncs = 0;
  const store = await open(
    {
      ...NODE_IO,
      fdatasync: async (fd) => {
        if (++syncs === 2) throw Object.assign(new Error('EIO: simulated'), { code: 'EIO' });
        return NODE_IO.fdatasync(fd);
      },
    },
    false,
  );
  expect(await createAll(store, [1])).toEqual([200]);
  const statuses = await createAll(store, [2, 3, 4]);
  expect(statuses.every((status) => status >= 500)).toBe(true);

  const writes = named('plant_store.file.write');
  expect(writes.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
  const failed = writes[1]!;
  expect(failed.attributes).toEqual({ 'plant_store.batch.size': 3, 'error.type': 'FileStoreError' });
  expect(failed.status.message).toMatch(/^writing .* failed \(EIO\)/);
  expect(failed.links.map((link) => link.context.spanId).sort()).toEqual(
    spanIds(named('plant_store.insert').filter((span) => span.status.code === SpanStatusCode.ERROR)),
  );
  expect(failed.links).toHaveLength(3);
});

test('links the inserts of an id that join its record while it waits for the write', async () => {
  tracing = registerTracing();
  const store = await open();
  expect(await createAll(store, [7, 7, 7])).toEqual([200, 200, 200]);
  const [write] = named('plant_store.file.write');
  expect(write?.attributes).toEqual({ 'plant_store.batch.size': 1 });
  expect(write?.links.map((link) => link.context.spanId).sort()).toEqual(spanIds(named('plant_store.insert')));
  expect(write?.links).toHaveLength(3);
});

test('with no SDK registered, traceLink() is undefined and a batch has no span', async () => {
  tracing = registerTracing();
  const inSpan = () =>
    trace.getTracer('test').startActiveSpan('outer', (span) => {
      const link = traceLink();
      span.end();
      return link;
    });
  const store = await open();
  expect(inSpan()).toBeDefined();
  expect(await createAll(store, [1])).toEqual([200]);
  expect(named('plant_store.file.write')).toHaveLength(1);

  tracing.disable();
  tracing.reset();
  expect(inSpan()).toBeUndefined();
  expect(await createAll(store, [2, 3])).toEqual([200, 200]);
  // The provider still runs: a span the store or the core made on a tracer kept from before would be here.
  expect(tracing.spans()).toEqual([]);
});
