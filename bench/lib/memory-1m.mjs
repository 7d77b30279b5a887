// Memory of the reference service holding 1M plants, RSS after two full GCs. Run with --expose-gc.
// Usage: node memory-1m.mjs '<json {count, ids, store, phase, path}>'.
// - store 'memory' (default): the core app with its in-memory store, filled with valid creates
//   through `app.handle` (the path the node:http adapter takes, without the sockets).
// - store 'file': @plant-store/store-file as a restarted `--data` server holds it. Phase 'fill'
//   writes the log at `path` (inserts straight into the store, 5,000 at a time: seconds, not a
//   million fsyncs); phase 'open', in a fresh process, replays it and reports.
import { createMemoryStore, createPlantStoreApp } from '@plant-store/core';

const { count = 1_000_000, ids = 'large', store = 'memory', phase, path } = JSON.parse(process.argv[2] ?? '{}');
const gc = globalThis.gc ?? (() => {});

// `ids: 'large'` puts ids near 2^62, past the doubles' exact range; `'small'` counts from 1. Names
// unique, a tag on half the plants, as a real catalogue would.
const ID_BASE = ids === 'large' ? 4_611_686_018_427_387_904n : 1n;
const plantAt = (i) =>
  i % 2 === 0
    ? { id: ID_BASE + BigInt(i), name: `Monstera deliciosa #${i}`, tag: 'indoor' }
    : { id: ID_BASE + BigInt(i), name: `Ficus lyrata #${i}` };

function settle() {
  gc();
  gc();
  return process.memoryUsage();
}

function report(before, fields) {
  const after = settle();
  process.stdout.write(
    `RESULT ${JSON.stringify({
      count,
      ids,
      store,
      rssBeforeMiB: before.rss / 2 ** 20,
      rssMiB: after.rss / 2 ** 20,
      heapUsedMiB: after.heapUsed / 2 ** 20,
      heapTotalMiB: after.heapTotal / 2 ** 20,
      externalMiB: after.external / 2 ** 20,
      gcExposed: globalThis.gc !== undefined,
      ...fields,
    })}\n`,
  );
}

async function fillMemory() {
  const TOKEN = 'bench-token';
  const encoder = new TextEncoder();
  // One scratch buffer for every body: the creates run one at a time and the core has decoded the
  // bytes before it answers, so reuse is safe, and a million short-lived ArrayBuffers (malloc'd
  // outside the JS heap) would leave allocator fragmentation in the RSS that is the harness's, not
  // the store's.
  const scratch = new Uint8Array(256);
  const before = settle();
  const memoryStore = createMemoryStore();
  const app = createPlantStoreApp({ tokens: [TOKEN], store: memoryStore });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const header = (name) => headers[name] ?? null;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const { id, name, tag } = plantAt(i);
    const body = tag === undefined ? `{"id":${id},"name":"${name}"}` : `{"id":${id},"name":"${name}","tag":"${tag}"}`;
    const bytes = scratch.subarray(0, encoder.encodeInto(body, scratch).written);
    const response = await app.handle({
      method: 'POST',
      path: '/plants',
      header,
      readBody: () => Promise.resolve(bytes),
    });
    if (response.status !== 200) throw new Error(`create ${i} answered ${response.status}: ${response.body}`);
  }
  const fillSeconds = (performance.now() - started) / 1000;
  const size = await memoryStore.size();
  if (size !== count) throw new Error(`the store holds ${size} plants, not ${count}`);
  report(before, { fillSeconds });
}

// Imported only for the file store, so the memory rows do not carry its modules in their RSS.
const openFileStore = async (options) => (await import('@plant-store/store-file')).openFileStore(options);

async function fillFile() {
  const file = await openFileStore({ path });
  let pending = [];
  for (let i = 0; i < count; i++) {
    pending.push(file.insert(plantAt(i)));
    if (pending.length === 5000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await file.close();
  process.stdout.write(`RESULT ${JSON.stringify({ count })}\n`);
}

async function openFile() {
  const before = settle();
  const started = performance.now();
  const file = await openFileStore({ path });
  const openSeconds = (performance.now() - started) / 1000;
  const size = file.recovery.plants;
  if (size !== count) throw new Error(`the reopened store replayed ${size} plants, not ${count}`);
  report(before, { openSeconds });
  await file.close();
}

if (store === 'memory') await fillMemory();
else if (phase === 'fill') await fillFile();
else await openFile();
