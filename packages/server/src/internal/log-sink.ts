/** Where JSON log lines go: anything with a `write(string)`, such as a stream or a test's collector. */
export interface LogSink {
  write(line: string): unknown;
}
