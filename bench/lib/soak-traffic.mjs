// The soak's traffic (bench/soak.mjs): paced mixed valid and hostile requests against a server on
// 127.0.0.1, each action checking its own answer. Hostile ones open raw sockets, so that framing the
// node:http client would refuse to send still reaches the server.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

/**
 * The traffic mix against the server at `port` with `token`, and what it saw.
 * @returns {{ pick(): [number, string, () => Promise<void>], count(kind: string): void,
 *   expectThat(ok: boolean, what: string): void, counts: Map<string, number>, unexpected: string[],
 *   close(): void }}
 */
export function createTraffic({ port, token, concurrency, idSpace }) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const counts = new Map();
  const unexpected = [];
  const count = (kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const expectThat = (ok, what) => {
    if (!ok && unexpected.length < 20) unexpected.push(what);
    if (!ok) count('unexpected');
  };

  /** One request over the keep-alive agent; resolves { status, body } or { error }. */
  function post(body, headers = {}) {
    return new Promise((resolve) => {
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/plants',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          timeout: 10_000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode, body: text }));
          res.on('error', (error) => resolve({ error: error.message }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => resolve({ error: error.message }));
      req.end(body);
    });
  }

  /** Raw bytes on a new socket; resolves the first line of the answer ('' when none) once closed. */
  const openSockets = new Set();
  function raw(bytes, { holdMs = 3_000, destroyAfterWrite = false } = {}) {
    return new Promise((resolve) => {
      let got = '';
      const socket = connect({ port, host: '127.0.0.1' });
      openSockets.add(socket);
      const done = () => {
        clearTimeout(timer);
        openSockets.delete(socket);
        socket.destroy();
        resolve(got.split('\r\n')[0] ?? '');
      };
      const timer = setTimeout(done, holdMs);
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', done);
      socket.on('connect', () => {
        socket.write(bytes, () => {
          if (destroyAfterWrite) done();
        });
      });
    });
  }

  const MAX_SLOW = 16;
  let slow = 0;
  const nameOf = (id) => `plant-${id}`;
  const head = (lines) => `${lines.join('\r\n')}\r\n\r\n`;
  const base = [
    'POST /plants HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
  ];

  /** The traffic mix: [weight, name, action]. Each action checks its own answer. */
  const mix = [
    [
      50,
      'create',
      async () => {
        const id = 1 + Math.floor(Math.random() * idSpace);
        const r = await post(`{"id":${id},"name":"${nameOf(id)}","tag":"soak","extra":{"ignored":[1,2,3]}}`);
        expectThat(
          r.status === 200 && r.body === `{"name":"${nameOf(id)}","tag":"soak"}`,
          `create ${id}: ${JSON.stringify(r)}`,
        );
      },
    ],
    [
      5,
      'conflict',
      async () => {
        // Ids of their own, two names each: whichever name came first wins, the other conflicts.
        const id = idSpace + 1 + Math.floor(Math.random() * 100);
        const r = await post(`{"id":${id},"name":"${Math.random() < 0.5 ? 'one' : 'two'}"}`);
        expectThat(
          r.status === 200 || (r.status === 400 && r.body.includes('40003')),
          `conflict ${id}: ${JSON.stringify(r)}`,
        );
      },
    ],
    [
      6,
      'invalid',
      async () => {
        const bodies = [
          '',
          '{',
          '[]',
          '{"id":1.5,"name":"x"}',
          '{"id":9223372036854775808,"name":"x"}',
          '{"id":1,"name":null}',
          '\xff\xfe',
        ];
        const r = await post(bodies[Math.floor(Math.random() * bodies.length)]);
        expectThat(r.status === 400, `invalid: ${JSON.stringify(r)}`);
      },
    ],
    [
      4,
      'unauthorized',
      async () => {
        const r = await post('{"id":1,"name":"x"}', {
          authorization: Math.random() < 0.5 ? 'Bearer wrong' : 'Basic eDp5',
        });
        expectThat(r.status === 401, `unauthorized: ${JSON.stringify(r)}`);
      },
    ],
    [
      4,
      'media-type',
      async () => {
        const r = await post('{"id":1,"name":"x"}', { 'content-type': 'text/plain' });
        expectThat(r.status === 415, `media type: ${JSON.stringify(r)}`);
      },
    ],
    [
      3,
      'deep',
      async () => {
        const r = await post(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
        expectThat(r.status === 400, `deep: ${JSON.stringify(r).slice(0, 200)}`);
      },
    ],
    [
      3,
      'too-large',
      async () => {
        const line = await raw(`${head([...base, 'Content-Length: 50000000'])}{"id":`);
        expectThat(line.startsWith('HTTP/1.1 413'), `declared too large: ${line}`);
      },
    ],
    [
      6,
      'bad-framing',
      async () => {
        const cases = [
          'GARBAGE\r\n\r\n',
          `${head([...base, 'Content-Length: 5', 'Transfer-Encoding: chunked'])}0\r\n\r\n`,
          `${head([...base, 'Content-Length: 2', 'Content-Length: 3'])}{}`,
          `${head([...base, 'Transfer-Encoding: chunked'])}zz\r\n{}\r\n0\r\n\r\n`,
          `${head([...base, 'X-Bad: a\u0000b', 'Content-Length: 2'])}{}`,
          `${head([...base, `X-Big: ${'a'.repeat(20_000)}`, 'Content-Length: 2'])}{}`,
        ];
        const line = await raw(cases[Math.floor(Math.random() * cases.length)]);
        expectThat(/^HTTP\/1\.1 4\d\d/.test(line), `bad framing: ${JSON.stringify(line)}`);
      },
    ],
    [
      3,
      'aborted-body',
      async () => {
        await raw(`${head([...base, 'Content-Length: 100'])}{"id":1,"na`, { destroyAfterWrite: true });
      },
    ],
    [
      2,
      'slow-headers',
      async () => {
        // Holds a socket with half a request for 1-3 s, well inside the server's header timeout, in
        // the background (at most MAX_SLOW at once) so the worker goes on sending.
        if (slow >= MAX_SLOW) return;
        slow++;
        void raw('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:', {
          holdMs: 1_000 + Math.random() * 2_000,
        }).finally(() => slow--);
      },
    ],
  ];
  const totalWeight = mix.reduce((s, [w]) => s + w, 0);
  function pick() {
    let r = Math.random() * totalWeight;
    for (const entry of mix) {
      r -= entry[0];
      if (r < 0) return entry;
    }
    return mix[0];
  }

  return {
    pick,
    count,
    expectThat,
    counts,
    unexpected,
    close() {
      // Let go of every client socket, so the server's descriptors can settle.
      agent.destroy();
      for (const socket of openSockets) socket.destroy();
    },
  };
}
