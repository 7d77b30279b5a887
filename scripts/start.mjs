// `npm start`: the reference server from the sources, in about a second. esbuild bundles the CLI with
// the workspace packages taken from their src/ (no type declarations, no dist/ needed), then the
// bundle runs in this process's place as far as signals go: SIGINT and SIGTERM reach the server,
// which drains and exits, and its exit code is this script's. When npm that started it dies, so does it.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Beside the server's package.json, which the CLI reads for --version as the built one does.
const outfile = join(root, 'packages/server/.cache/cli.mjs');
mkdirSync(dirname(outfile), { recursive: true });

await build({
  entryPoints: [join(root, 'packages/server/src/cli.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  alias: {
    '@plant-store/core': join(root, 'packages/core/src/index.ts'),
    '@plant-store/store-file': join(root, 'packages/store-file/src/index.ts'),
    '@plant-store/store-postgres': join(root, 'packages/store-postgres/src/index.ts'),
  },
  // The workspace's packages come from their sources (above); the others (pg, pino, prom-client) from
  // node_modules, as they are: some of them load modules in ways a bundle cannot follow.
  packages: 'external',
  logLevel: 'warning',
});

const child = spawn(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));

// `npm start` execs this script in place of npm's shell, so the SIGTERM or SIGINT that npm forwards to
// its child reaches it (`kill <npm pid>`, as a process manager sends it). npm killed outright forwards
// nothing: its death is seen here as a new parent, and the server is stopped as if SIGTERM had come.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  child.kill('SIGTERM');
}, 200);
watch.unref();
