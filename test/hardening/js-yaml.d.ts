// js-yaml ships no types and @types/js-yaml is not a dependency; the hardening tests only load
// openapi.yaml with it, so this one signature is all they need.
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
