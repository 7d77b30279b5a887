// Serves the contract host with the runtime's own server, Bun.serve or Deno.serve, on 127.0.0.1 and a
// free port, and prints its URL as the hosting examples do.
import host from './contract-host.js';

const listening = (url: string) => console.log(`Plant Store contract host listening on ${url}`);

if (typeof Bun !== 'undefined') {
  listening(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: host.fetch }).url.href);
} else {
  Deno.serve(
    { hostname: '127.0.0.1', port: 0, onListen: (at) => listening(`http://${at.hostname}:${at.port}/`) },
    host.fetch,
  );
}
