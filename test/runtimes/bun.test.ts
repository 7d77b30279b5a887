// Bun (the `bun` package): the core served with Bun.serve.
import { join } from 'node:path';
import { ROOT, startRuntime } from './child.js';
import { testRuntime } from './suite.js';

const bun = join(ROOT, 'node_modules/.bin/bun');

testRuntime({
  transport: 'bun',
  startExample: (token) => startRuntime(bun, ['test/runtimes/bun-server.ts'], { PLANT_STORE_TOKEN: token, PORT: '0' }),
  startContractHost: () => startRuntime(bun, ['test/runtimes/contract-server.ts']),
});
