// workerd (through the `miniflare` package): the core bundled for the Worker platform, no Node
// compatibility flag. miniflare is pinned to its last release that runs on Node 20.
import { startRuntime } from './child.js';
import { testRuntime } from './suite.js';

const host = (worker: string, env?: Record<string, string>) =>
  startRuntime(process.execPath, ['test/runtimes/miniflare-host.mjs', worker], env);

testRuntime({
  transport: 'workerd',
  startExample: (token) => host('test/runtimes/worker.ts', { PLANT_STORE_TOKEN: token }),
  startContractHost: () => host('test/runtimes/contract-host.ts'),
});
