// Runs one client contender's calls in sequence and exits: what client-instructions.mjs counts.
// Usage: node client-calls.mjs '<json {url, token, name, calls}>'.
import { clientContenders } from './client-contenders.mjs';

const { url, token, name, calls } = JSON.parse(process.argv[2]);
const contender = clientContenders(url, token).find((c) => c.name === name);
if (!contender) throw new Error(`no client contender named ${name}`);
for (let i = 0; i < calls; i++) await contender.call(i);
