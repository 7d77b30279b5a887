import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.package.js';

// `testing` is its own entry so that fast-check, its peer, never reaches the main entry.
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/testing.ts'] }));
