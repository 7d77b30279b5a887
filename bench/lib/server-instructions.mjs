// Instructions per request of a server under valgrind (cachegrind, user space): the steady figure
// beside req/s, which on this kind of shared 2-core VM is bound by the load generator and moves
// with the other tenants. The server runs serve.mjs under valgrind on one core; this process sends
// creates over 4 keep-alive connections from the other (unique ids, or one fixed id with the tag
// flipping: replay 200 and 40003 in turn, as the timed fixed-id load); a run of `few` requests is
// subtracted from a run of `many`, which leaves out start-up and most of the JIT warm-up.
// Requests reach the slowed server one or two per event-loop turn, so the per-turn cost weighs more
// than under autocannon: compare servers with each other, not with the CPU µs of the timed rows.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { readInstructionCount, valgrindNode } from './valgrind.mjs';

const SERVE = fileURLToPath(new URL('./serve.mjs', import.meta.url));

async function count(kind, options, requests, { token, core, workload }) {
  const [file, ...args] = valgrindNode([SERVE, kind, JSON.stringify(options)], core);
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const killer = setTimeout(() => child.kill('SIGKILL'), 600_000);
  try {
    const url = await new Promise((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('READY')) resolve(JSON.parse(line.slice(6)).url);
      });
      exited.then(() => reject(new Error(`server exited before READY: ${stderr.slice(-300)}`)));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    let id = 1_000_000_000;
    let left = requests;
    const one = () =>
      new Promise((resolve, reject) => {
        const body =
          workload === 'fixed'
            ? `{"id":77,"name":"Monstera deliciosa","tag":"${id++ % 2 ? 'indoor' : 'outdoor'}"}`
            : `{"id":${id++},"name":"Monstera deliciosa","tag":"indoor"}`;
        const req = http.request(
          `${url}/plants`,
          {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 || (workload === 'fixed' && res.statusCode === 400) ? resolve() : reject(new Error(`status ${res.statusCode}`))));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    await Promise.all([0, 1, 2, 3].map(async () => {
      while (left-- > 0) await one();
    }));
    agent.destroy();
    child.kill('SIGTERM');
    await exited;
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
  }
  const instructions = readInstructionCount(stderr);
  if (instructions === undefined) throw new Error(`valgrind gave no count: ${stderr.slice(-300)}`);
  return instructions;
}

/** @returns {Promise<{ id: string, perRequest: number }[]>} user-space instructions per request */
export async function countServerInstructions(servers, { token, core, workload = 'unique', few = 500, many = 2500 }) {
  const results = [];
  for (const { id, kind, options = {} } of servers) {
    const small = await count(kind, { tokens: [token], ...options }, few, { token, core, workload });
    const large = await count(kind, { tokens: [token], ...options }, many, { token, core, workload });
    results.push({ id, perRequest: (large - small) / (many - few) });
  }
  return results;
}
