// Runs a Worker module in workerd through miniflare, for the runtime tests. The module (TypeScript) is
// bundled with esbuild for the browser platform, where no `node:` module resolves, and workerd runs it
// with no Node compatibility flag. Serves on 127.0.0.1 and a free port and prints the URL; the
// PLANT_STORE_TOKEN environment variable, when set, becomes the Worker's binding of that name.
// miniflare stops workerd when this process exits or gets SIGTERM or SIGINT; the tests run it under
// supervise.mjs, which sends SIGTERM when they end.
//   node test/runtimes/miniflare-host.mjs test/runtimes/worker.ts
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';

// The newest date this workerd release knows; no compatibility flags.
const COMPATIBILITY_DATE = '2026-04-26';

const entry = process.argv[2];
if (entry === undefined) {
  console.error('usage: node test/runtimes/miniflare-host.mjs <worker module>');
  process.exit(2);
}

const { outputFiles } = await build({
  entryPoints: [entry],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  target: 'es2022',
  logLevel: 'error',
});

const token = process.env.PLANT_STORE_TOKEN;
const mf = new Miniflare({
  modules: true,
  script: outputFiles[0].text,
  compatibilityDate: COMPATIBILITY_DATE,
  host: '127.0.0.1',
  port: 0,
  bindings: token === undefined ? {} : { PLANT_STORE_TOKEN: token },
});

let url;
try {
  url = await mf.ready;
} catch (error) {
  await mf.dispose().catch(() => {});
  throw error;
}
console.log(`Worker listening on ${url.href}`);
