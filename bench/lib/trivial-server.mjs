// The client benchmark's server: answers every request with the Plant JSON and does nothing else,
// so the time measured on the client side is the client's own plus a floor shared by both sides.
import { createServer } from 'node:http';

const BODY = JSON.stringify({ name: 'Fern', tag: 'indoor' });

/** Starts the trivial Plant server. */
export async function startTrivialServer({ port = 0, host = '127.0.0.1' }) {
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(BODY),
        'x-request-id': 'trivial',
      });
      res.end(BODY);
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${address.address}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
