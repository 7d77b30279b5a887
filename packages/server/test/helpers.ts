// Shared by the server suites: servers that are always closed, and small request builders.
import { afterEach } from 'vitest';
import type { MemoryStore, PlantStore } from '@plant-store/core';
import { type PlantStoreServer, type PlantStoreServerOptions, startPlantStoreServer } from '../src/index.js';

/** The token the suites' servers accept unless a test says otherwise. */
export const TOKEN = 'server-test-token';

const running = new Set<PlantStoreServer<PlantStore>>();
afterEach(async () => {
  await Promise.all([...running].map((server) => server.close()));
  running.clear();
});

/** A server on 127.0.0.1 and a free port, closed after the test. */
export async function serve<S extends PlantStore = MemoryStore>(
  options: PlantStoreServerOptions<S> = {},
): Promise<PlantStoreServer<S>> {
  const server = await startPlantStoreServer<S>({ port: 0, tokens: [TOKEN], ...options });
  running.add(server);
  return server;
}

/** POST /plants with the suite's token and a JSON media type. */
export function createPlant(
  server: Pick<PlantStoreServer<PlantStore>, 'url'>,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** The head of a raw POST /plants request (no body), for tests that frame the body themselves. */
export function postHead(lines: readonly string[], path = '/plants'): string {
  return (
    [
      `POST ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: Bearer ${TOKEN}`,
      'Content-Type: application/json',
      ...lines,
    ].join('\r\n') + '\r\n\r\n'
  );
}

/** A complete raw POST /plants request with a Content-Length. */
export function postRaw(body: string, lines: readonly string[] = []): string {
  return postHead([`Content-Length: ${Buffer.byteLength(body)}`, ...lines]) + body;
}

// The raw HTTP/1.1 client every suite shares, for requests sent byte for byte.
export { RawConnection, connectionRefused, exchangeUntilClose } from '../../../test/support/raw-http.js';
