// js-yaml ships no types and @types/js-yaml is not a dependency; the hardening tests only load
// openapi.yaml with it (and the grown copy of test/support/evolved-repo.ts writes one back), so these
// two signatures are all they need.
declare module 'js-yaml' {
  export function load(text: string): unknown;
  export function dump(value: unknown, options?: { lineWidth?: number }): string;
}
