// Child process of the client part, in two modes:
//   node client-bench.mjs '<json {url, token, calls, rounds}>'   times every client contender
//     against the server at `url`, interleaved call by call, and prints `RESULT [...]`;
//   node client-bench.mjs '<json {url, token, calls, name}>'     makes `calls` calls of the one
//     contender `name` and exits: what lib/client-instructions.mjs counts under valgrind.
import { alternate } from './alternate.mjs';
import { clientContenders } from './client-contenders.mjs';

const { url, token, calls = 6000, rounds = 10, name } = JSON.parse(process.argv[2]);
const contenders = clientContenders(url, token);
if (name === undefined) {
  const results = await alternate(contenders, { warmup: 500, rounds, perRound: Math.ceil(calls / rounds) });
  process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
} else {
  const contender = contenders.find((c) => c.name === name);
  if (!contender) throw new Error(`no client contender named ${name}`);
  for (let i = 0; i < calls; i++) await contender.call(i);
}
