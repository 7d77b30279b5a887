// The shared raw client read against a server that answers canned bytes, so every framing the wire
// suites rely on is parsed as written here: a bug in it would make their assertions lie.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { RawConnection, connectionRefused, exchange, exchangeUntilClose } from './raw-http.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A TCP server on 127.0.0.1 that runs `script` on each connection once the client has sent a byte. */
async function canned(script: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => script(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const answer = (status: number, headers: string[], body = '') =>
  `HTTP/1.1 ${status} X\r\n${headers.join('\r\n')}${headers.length > 0 ? '\r\n' : ''}\r\n${body}`;

it('parses pipelined answers framed by Content-Length, joining a repeated header', async () => {
  const port = await canned((socket) =>
    socket.write(
      answer(200, ['Content-Length: 7', 'Vary: a', 'Vary: b'], '{"a":1}') + answer(404, ['Content-Length: 2'], 'ab'),
    ),
  );
  const { answers, closed } = await exchange(port, 'x', { count: 2 });
  expect(answers.map((a) => [a.status, a.body])).toEqual([
    [200, '{"a":1}'],
    [404, 'ab'],
  ]);
  expect(answers[0]?.headers['vary']).toBe('a, b');
  expect(answers[0]?.head).toBe('HTTP/1.1 200 X\r\nContent-Length: 7\r\nVary: a\r\nVary: b');
  expect(closed).toBe(false);
});

it('joins a chunked body that arrives in pieces, trailer included, and decodes it as UTF-8', async () => {
  const port = await canned((socket) => {
    const parts = [
      answer(200, ['Transfer-Encoding: chunked']) + '3\r\nab',
      'c\r\n2;ext=1\r\n\u00e9',
      '\r\n0\r\nX-T: 1\r\n\r\n',
    ];
    const send = () => {
      const part = parts.shift();
      if (part !== undefined) socket.write(Buffer.from(part, 'utf8'), () => setTimeout(send, 20));
    };
    send();
  });
  const connection = await RawConnection.open(port);
  await connection.write('x');
  const answers = await connection.waitForAnswers(1);
  connection.destroy();
  expect(answers.map((a) => a.body)).toEqual(['abc\u00e9']);
  expect(connection.leftover).toBe('');
});

it('ends a body without a length at the close, and only then counts it', async () => {
  const port = await canned((socket) => {
    socket.write(answer(400, ['Connection: close'], 'partial'));
    setTimeout(() => socket.end(' and the rest'), 50);
  });
  const connection = await RawConnection.open(port);
  await connection.write('x');
  expect(await connection.waitForText('partial')).toBe(true);
  expect(connection.answers()).toEqual([]);
  expect(await connection.waitForClose()).toBe(true);
  expect(connection.answers().map((a) => a.body)).toEqual(['partial and the rest']);
});

it('leaves interim 1xx answers out of the answers but keeps them in the text', async () => {
  const port = await canned((socket) =>
    socket.end(answer(100, []) + answer(204, ['X-A: 1']) + answer(200, ['Content-Length: 2'], 'ok')),
  );
  const { answers, text, closed } = await exchangeUntilClose(port, 'x');
  expect(answers.map((a) => [a.status, a.body])).toEqual([
    [204, ''],
    [200, 'ok'],
  ]);
  expect(text.startsWith('HTTP/1.1 100 X\r\n\r\n')).toBe(true);
  expect(closed).toBe(true);
});

it('shows the bytes after the last complete answer as leftover', async () => {
  const port = await canned((socket) => socket.end(answer(408, ['Content-Length: 2'], 'to') + 'HTTP/1.1 2'));
  const connection = await RawConnection.open(port);
  await connection.write('x');
  await connection.waitForClose();
  expect(connection.answers().map((a) => a.status)).toEqual([408]);
  expect(connection.leftover).toBe('HTTP/1.1 2');
});

it('gives up a wait at its time limit with what arrived', async () => {
  const port = await canned((socket) => socket.write(answer(200, ['Content-Length: 1'], 'a')));
  const connection = await RawConnection.open(port);
  await connection.write('x');
  const answers = await connection.waitForAnswers(2, 300);
  const closed = await connection.waitForClose(50);
  connection.destroy();
  expect(answers.map((a) => a.status)).toEqual([200]);
  expect(closed).toBe(false);
});

it('tells a refused connection from an accepted one', async () => {
  const port = await canned(() => {});
  expect(await connectionRefused(port)).toBe(false);
  await new Promise((resolve) => servers.pop()!.close(resolve));
  expect(await connectionRefused(port)).toBe(true);
});
