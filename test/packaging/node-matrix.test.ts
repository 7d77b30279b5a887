// The client's and the server's test files on the other supported Node majors (scripts/node-matrix.sh),
// with Node binaries from the npm registry (cached by npx after the first download).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, npmEnv, publishedPackages, repoRoot, run } from './helpers.js';

describe.each([22, 24])('Node %i', (major) => {
  it(
    'passes the client\'s and the server\'s test files',
    async () => {
      publishedPackages.forEach(assertBuilt);
      const result = await run('bash', [join(repoRoot, 'scripts/node-matrix.sh'), String(major)], {
        env: { ...npmEnv, NODE_MATRIX_TIMEOUT: '540' },
        timeoutMs: 600_000,
      });
      const output = `${result.stdout}\n${result.stderr}`;
      expect(output).toMatch(new RegExp(`== Node v${major}\\.`));
      expect(result.status, output.slice(-4000)).toBe(0);
    },
    610_000,
  );
});
