// The few Bun and Deno globals the examples and their helpers use, so that the repository's Node
// type check covers those files without either runtime's full type package.

declare const Bun: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: { stream(): ReadableStream<Uint8Array> };
  serve(options: { hostname: string; port: number; fetch(request: Request): Response | Promise<Response> }): {
    readonly url: URL;
  };
};

declare namespace Deno {
  interface NetAddr {
    readonly hostname: string;
    readonly port: number;
  }
  const env: { get(name: string): string | undefined };
  const stdin: { readonly readable: ReadableStream<Uint8Array> };
  function exit(code?: number): never;
  function serve(
    options: { hostname: string; port: number; onListen?(addr: NetAddr): void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
}
