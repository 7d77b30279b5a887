// Heap and RSS after 1M creates through app.handle into the memory store.
// Usage: node --expose-gc packages/core/scripts/measure-store-rss.mjs [tag] [big]
//   tag: every plant has a tag; big: ids above 2^53 (bigint Map keys).
import { createPlantStoreApp } from '../dist/index.js';
const app = createPlantStoreApp({ tokens: ['tok'] });
const headers = { authorization: 'Bearer tok', 'content-type': 'application/json' };
const enc = new TextEncoder();
const tag = process.argv[2] === 'tag';
const base = process.argv[3] === 'big' ? 2n ** 60n : 0n;
globalThis.gc?.();
const before = process.memoryUsage();
for (let i = 0; i < 1_000_000; i++) {
  const id = base + BigInt(i);
  const body = enc.encode(`{"id":${id},"name":"Plant number ${i}"${tag ? `,"tag":"tag-${i % 100}"` : ''}}`);
  const r = await app.handle({
    method: 'POST',
    path: '/plants',
    header: (n) => headers[n] ?? null,
    readBody: async () => body,
  });
  if (r.status !== 200) throw new Error(r.body);
}
globalThis.gc?.();
const after = process.memoryUsage();
const mb = (x) => (x / 1048576).toFixed(1);
console.log(
  `tag=${tag} ids=${base ? '>2^53 (bigint keys)' : 'small'} size=${await app.store.size()} rss ${mb(before.rss)} -> ${mb(after.rss)} MB, heapUsed ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB heapTotal ${mb(after.heapTotal)} ext ${mb(after.external)} ab ${mb(after.arrayBuffers)}`,
);
