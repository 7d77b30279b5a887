// Deno (the `deno` package): the core served with Deno.serve, with no permission beyond the loopback
// network and the two variables the example reads.
import { join } from 'node:path';
import { ROOT, startRuntime } from './child.js';
import { testRuntime } from './suite.js';

const deno = join(ROOT, 'node_modules/.bin/deno');
const run = ['run', '--no-prompt', '--no-lock', '--allow-net=127.0.0.1'];
// No update check: it would reach for the network.
const env = { DENO_NO_UPDATE_CHECK: '1' };

testRuntime({
  transport: 'deno',
  startExample: (token) =>
    startRuntime(deno, [...run, '--allow-env=PLANT_STORE_TOKEN,PORT', 'test/runtimes/deno-server.ts'], {
      ...env,
      PLANT_STORE_TOKEN: token,
      PORT: '0',
    }),
  startContractHost: () => startRuntime(deno, [...run, 'test/runtimes/contract-server.ts'], env),
});
