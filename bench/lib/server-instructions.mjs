// Instructions per request of a server under valgrind (cachegrind, user space): the steady figure
// beside req/s and CPU time, which move with the other tenants of a shared machine. The server runs
// under valgrind on one core (lib/serve.mjs); this process sends
// creates over 4 keep-alive connections from the other (unique ids, or one fixed id with the tag
// flipping: replay 200 and 40003 in turn, as the timed fixed-id load); a run of `few` requests is
// subtracted from a run of `many`, which leaves out start-up and most of the JIT warm-up.
// Requests reach the slowed server one or two per event-loop turn, so the per-turn cost weighs more
// than under autocannon: compare servers with each other, not with the CPU µs of the timed rows.
import http from 'node:http';
import { readInstructionCount } from './proc.mjs';
import { startServer } from './serve.mjs';

async function count(kind, options, requests, { token, core, workload }) {
  const running = await startServer(kind, options, { core, valgrind: true });
  try {
    const url = running.url;
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
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': body.length,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200 || (workload === 'fixed' && res.statusCode === 400)
                ? resolve()
                : reject(new Error(`status ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    await Promise.all(
      [0, 1, 2, 3].map(async () => {
        while (left-- > 0) await one();
      }),
    );
    agent.destroy();
  } finally {
    await running.stop();
  }
  const instructions = readInstructionCount(running.stderr());
  if (instructions === undefined) throw new Error(`valgrind gave no count: ${running.stderr().slice(-300)}`);
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
