// A raw HTTP/1.1 exchange on a socket, for what fetch will not send (a Content-Length that disagrees
// with the body). Node only.
import { connect } from 'node:net';
import { bodyBytes, COMPARED_HEADERS, type Observed, type RawRequest } from './harness.js';

/** Sends `request` exactly as given on a new connection and reads the answer until the server closes. */
export function sendRaw(port: number, request: RawRequest, timeoutMs = 10_000): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    // Bounded: a server that never answers fails the case instead of hanging the suite.
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    const head = [`${request.method} ${request.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'];
    for (const [name, value] of Object.entries(request.headers ?? {})) head.push(`${name}: ${value}`);
    socket.write(head.join('\r\n') + '\r\n\r\n');
    const body = bodyBytes(request.body);
    if (body !== undefined) socket.write(body);
  });
}

function parse(raw: Buffer): Observed {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const all = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    all.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const length = Number(all.get('content-length') ?? raw.length - end - 4);
  const headers: Record<string, string | null> = {};
  for (const name of COMPARED_HEADERS) headers[name] = all.get(name) ?? null;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: raw.subarray(end + 4, end + 4 + length).toString('utf8'),
  };
}
