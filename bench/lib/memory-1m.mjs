// Memory of the reference service holding 1M plants: the core app with its in-memory store, filled
// with 1M valid creates through `app.handle` (the path the node:http adapter takes, without the
// sockets), then RSS after a full GC. Run with --expose-gc. Usage: node memory-1m.mjs '<json {count}>'.
import { createPlantStoreApp } from '@plant-store/core';

const { count = 1_000_000, ids = 'large' } = JSON.parse(process.argv[2] ?? '{}');
const TOKEN = 'bench-token';
const encoder = new TextEncoder();
// One scratch buffer for every body: the creates run one at a time and the core has decoded the
// bytes before it answers, so reuse is safe, and a million short-lived ArrayBuffers (malloc'd
// outside the JS heap) would leave allocator fragmentation in the RSS that is the harness's, not
// the store's.
const scratch = new Uint8Array(256);
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

// `ids: 'large'` puts ids near 2^62, past the doubles' exact range (the store keys those by bigint);
// `'small'` counts from 1. Names unique, a tag on half the plants, as a real catalogue would.
const ID_BASE = ids === 'large' ? 4_611_686_018_427_387_904n : 1n;
const started = performance.now();
for (let i = 0; i < count; i++) {
  const body =
    i % 2 === 0
      ? `{"id":${ID_BASE + BigInt(i)},"name":"Monstera deliciosa #${i}","tag":"indoor"}`
      : `{"id":${ID_BASE + BigInt(i)},"name":"Ficus lyrata #${i}"}`;
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
const size = await app.store.size();
if (size !== count) throw new Error(`the store holds ${size} plants, not ${count}`);
const after = settle();
process.stdout.write(
  `RESULT ${JSON.stringify({
    count,
    ids,
    rssBeforeMiB: before.rss / 2 ** 20,
    rssMiB: after.rss / 2 ** 20,
    heapUsedMiB: after.heapUsed / 2 ** 20,
    heapTotalMiB: after.heapTotal / 2 ** 20,
    externalMiB: after.external / 2 ** 20,
    fillSeconds,
    gcExposed: globalThis.gc !== undefined,
  })}\n`,
);
