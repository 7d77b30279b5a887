// Quick profile of app.handle on valid creates with a stub readBody (not a benchmark suite: see npm run bench).
// Usage: npm run build -w packages/core && node packages/core/scripts/profile-handle.mjs [count] [rid]
//   rid: send a caller X-Request-Id (no UUID generation). Add --cpu-prof to node for a profile.
import { createPlantStoreApp } from '../dist/index.js';
const app = createPlantStoreApp({ tokens: ['tok-abcdefghijklmnop'] });
const headers = {
  authorization: 'Bearer tok-abcdefghijklmnop',
  'content-type': 'application/json',
  'content-length': '40',
  ...(process.argv[3] ? { 'x-request-id': 'req-123' } : {}),
};
const enc = new TextEncoder();
const N = +(process.argv[2] ?? 200000);
const bodies = Array.from({ length: N }, (_, i) => enc.encode(`{"id":${i},"name":"Plant ${i}","tag":"t"}`));
function req(i) {
  return { method: 'POST', path: '/plants', header: (n) => headers[n] ?? null, readBody: async () => bodies[i] };
}
// warm up on a separate app
const warm = createPlantStoreApp({ tokens: ['tok-abcdefghijklmnop'] });
for (let i = 0; i < 20000; i++) await warm.handle({ ...req(i) });
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const r = await app.handle(req(i));
  if (r.status !== 200) throw new Error(r.body);
}
const ms = performance.now() - t0;
const cu = process.cpuUsage(c0);
const cpuMs = (cu.user + cu.system) / 1000;
console.log(
  `${N} creates: wall ${ms.toFixed(0)} ms, cpu ${cpuMs.toFixed(0)} ms = ${Math.round((N / cpuMs) * 1000)} creates per cpu-second`,
);
