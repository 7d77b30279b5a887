// The parser ships no types: what the tests read of its result.
declare module 'parse-prometheus-text-format' {
  export default function parse(text: string): unknown[];
}
