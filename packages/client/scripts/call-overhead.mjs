// Per-call time of `createPlant` (and a client, and openapi-fetch alone) against the same request
// made with raw fetch, on a trivial node:http server in this process on 127.0.0.1. Calls are
// interleaved in a rotating order, so every kind sees the same drift in the machine's load. Wall time
// and CPU time (user + system of this process, client and server together) are both reported: on a
// busy machine the wall time mostly measures waiting for a core, the CPU time what a call costs.
// Run after `npm run build -w packages/client`: node packages/client/scripts/call-overhead.mjs [calls]
// `npm run bench` is the reference measurement (server and client in separate processes, pinned).
import http from 'node:http';
import createClient from 'openapi-fetch';
import { createPlant, createPlantStoreClient } from '../dist/index.js';

const calls = Number(process.argv[2] ?? 2000);
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r1' });
    response.end('{"name":"Fern","tag":"shade"}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;
const token = 'secret-token';
const plant = { id: 1, name: 'Fern', tag: 'shade' };
const client = createPlantStoreClient({ baseUrl });
const openapi = createClient({ baseUrl });

const kinds = {
  async 'raw fetch'() {
    const response = await fetch(`${baseUrl}/plants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(plant),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`status ${response.status}`);
    return body;
  },
  createPlant: () => createPlant(token, plant, { baseUrl }),
  'client.createPlant': () => client.createPlant(token, plant),
  async 'openapi-fetch alone'() {
    const { data, error } = await openapi.POST('/plants', {
      body: plant,
      headers: { authorization: `Bearer ${token}` },
    });
    if (error) throw new Error('failed');
    return data;
  },
};
const names = Object.keys(kinds);
const total = Object.fromEntries(names.map((name) => [name, 0n]));
const cpu = Object.fromEntries(names.map((name) => [name, 0]));
for (let i = 0; i < 300; i++) for (const name of names) await kinds[name]();
for (let i = 0; i < calls; i++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(i + j) % names.length];
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    await kinds[name]();
    const usedCpu = process.cpuUsage(startCpu);
    total[name] += process.hrtime.bigint() - start;
    cpu[name] += usedCpu.user + usedCpu.system;
  }
}
server.close();
const us = (name) => Number(total[name]) / calls / 1000;
console.log(
  JSON.stringify({
    calls,
    usPerCall: Object.fromEntries(names.map((name) => [name, +us(name).toFixed(1)])),
    ratioToRawFetch: Object.fromEntries(names.map((name) => [name, +(us(name) / us('raw fetch')).toFixed(3)])),
    cpuUsPerCall: Object.fromEntries(names.map((name) => [name, +(cpu[name] / calls).toFixed(1)])),
    cpuRatioToRawFetch: Object.fromEntries(names.map((name) => [name, +(cpu[name] / cpu['raw fetch']).toFixed(3)])),
  }),
);
