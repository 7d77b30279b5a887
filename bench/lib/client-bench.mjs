// Client overhead: sequential `createPlant` calls against a trivial server (another process, on
// the other core) vs the same request made with raw `fetch` (same URL, headers and body, same
// status check and JSON read), interleaved call by call.
// Usage: node client-bench.mjs '<json {url, token, calls, rounds}>'.
import { alternate } from './alternate.mjs';
import { clientContenders } from './client-contenders.mjs';

const { url, token, calls = 6000, rounds = 10 } = JSON.parse(process.argv[2]);
const results = await alternate(clientContenders(url, token), { warmup: 500, rounds, perRound: Math.ceil(calls / rounds) });
process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
