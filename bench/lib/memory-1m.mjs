// Memory of the reference service holding 1M plants: the core app with its in-memory store, filled
// with 1M valid creates through `app.handle` (the path the node:http adapter takes, without the
// sockets), then RSS after a full GC. Run with --expose-gc. Usage: node memory-1m.mjs '<json {count}>'.
import { createPlantStoreApp } from '@plant-store/core';

const { count = 1_000_000 } = JSON.parse(process.argv[2] ?? '{}');
const TOKEN = 'bench-token';
const encoder = new TextEncoder();
const gc = globalThis.gc ?? (() => {});

function settle() {
  gc();
  gc();
  return process.memoryUsage();
}

const before = settle();
const app = createPlantStoreApp({ tokens: [TOKEN] });
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const header = (name) => headers[name] ?? null;

// Ids near 2^62, past the doubles' exact range, as real int64 ids are; names unique, tags shared
// by half the plants and absent on the rest, so the store holds what a real catalogue would.
const ID_BASE = 4_611_686_018_427_387_904n;
const started = performance.now();
for (let i = 0; i < count; i++) {
  const body =
    i % 2 === 0
      ? `{"id":${ID_BASE + BigInt(i)},"name":"Monstera deliciosa #${i}","tag":"indoor"}`
      : `{"id":${ID_BASE + BigInt(i)},"name":"Ficus lyrata #${i}"}`;
  const bytes = encoder.encode(body);
  const response = await app.handle({
    method: 'POST',
    path: '/plants',
    header,
    readBody: () => Promise.resolve(bytes),
  });
  if (response.status !== 200) throw new Error(`create ${i} answered ${response.status}: ${response.body}`);
}
const fillSeconds = (performance.now() - started) / 1000;
const size = await app.store.size();
if (size !== count) throw new Error(`the store holds ${size} plants, not ${count}`);
const after = settle();
process.stdout.write(
  `RESULT ${JSON.stringify({
    count,
    rssBeforeMiB: before.rss / 2 ** 20,
    rssMiB: after.rss / 2 ** 20,
    heapUsedMiB: after.heapUsed / 2 ** 20,
    fillSeconds,
    gcExposed: globalThis.gc !== undefined,
  })}\n`,
);
