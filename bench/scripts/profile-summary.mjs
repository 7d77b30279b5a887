// Summarises V8 .cpuprofile files (from `BENCH_PROFILE=1 npm run bench`): self time by function and
// by source file, so "what costs" can be read without opening DevTools.
// Usage: node bench/scripts/profile-summary.mjs <file-or-dir> [top=25]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [target, topArg = '25'] = process.argv.slice(2);
if (!target) {
  console.error('usage: node bench/scripts/profile-summary.mjs <file.cpuprofile | dir> [top]');
  process.exit(2);
}
const top = Number(topArg);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(target, f))
  : [target];

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  // timeDeltas[i] is the time before sample i; attributing it to sample i is V8's own convention.
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  // Idle time is the process waiting for the network (or for a core on a busy machine): it says
  // nothing about what the code costs, so shares are of busy time.
  for (const [id] of selfUs) if (byId.get(id).callFrame.functionName === '(idle)') selfUs.delete(id);
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byFile = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const where = callFrame.url
      ? callFrame.url.replace(/^file:\/\/.*\/(packages|node_modules|bench)\//, '$1/')
      : '(native)';
    const name = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const group = where.startsWith('node:') ? where.split('/').slice(0, 2).join('/') : where;
    byFile.set(group, (byFile.get(group) ?? 0) + us);
  }
  const print = (title, map) => {
    console.log(`\n${title}`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
    }
  };
  console.log(`\n== ${file} (${(total / 1e6).toFixed(2)} s busy)`);
  print('self time by function', byFunction);
  print('self time by file', byFile);
}
