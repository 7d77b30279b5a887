import type { Options } from 'tsup';

/**
 * The build every published package shares: ES modules and CommonJS, each with its own types, for
 * ES2022, from `src/index.ts` unless a package names its entries.
 */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'es2022',
    sourcemap: false,
    ...overrides,
  };
}
