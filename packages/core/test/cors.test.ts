import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/index.js';
import { createRequest, makeApp, read, URL_BASE } from './helpers.js';

const ORIGIN = 'https://app.example';

function preflight(
  origin: string | null,
  extra: Record<string, string> = { 'access-control-request-method': 'POST' },
  path = '/plants',
) {
  const headers = new Headers(extra);
  if (origin !== null) headers.set('origin', origin);
  return new Request(URL_BASE + path, { method: 'OPTIONS', headers });
}

describe('CORS', () => {
  it('answers a preflight from an allowed origin with 204 and the allowed method, headers and max age', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    const res = await read(
      await app.fetch(
        preflight(ORIGIN, {
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        }),
      ),
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Request-Id');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('content-type')).toBeNull();
  });

  it('needs no credentials for a preflight (browsers never send them)', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    expect((await app.fetch(preflight(ORIGIN))).status).toBe(204);
  });

  it('honours a configured preflight max age', async () => {
    const app = makeApp({ cors: { origins: '*', maxAge: 60 } });
    expect((await app.fetch(preflight(ORIGIN))).headers.get('access-control-max-age')).toBe('60');
  });

  it('gives a preflight from another origin no CORS headers, so the browser blocks the call', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    for (const origin of ['https://evil.example', 'https://app.example.evil', 'http://app.example', 'null']) {
      const res = await app.fetch(preflight(origin));
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
      expect(res.headers.get('vary')).toBe('Origin');
    }
  });

  it('answers a plain OPTIONS with 204 and Allow: POST, OPTIONS when CORS is on', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    const res = await app.fetch(preflight(null, {}));
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('lists OPTIONS in Allow on a 405 when CORS is on', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    const res = await read(await app.fetch(new Request(`${URL_BASE}/plants`, { headers: { origin: ORIGIN } })));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.json.error).toBe(ErrorCode.METHOD_NOT_ALLOWED);
  });

  it('answers OPTIONS with 405 and no CORS headers when CORS is off', async () => {
    const app = makeApp();
    const res = await app.fetch(preflight(ORIGIN));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBeNull();
  });

  it('adds the origin, exposed headers and Vary to every answer to an allowed origin: 200, 401, 404 and 400', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN, 'https://other.example'] } });
    const requests = [
      createRequest('{"id":1,"name":"a"}', { headers: { origin: ORIGIN } }),
      createRequest('{"id":1,"name":"a"}', { headers: { origin: ORIGIN, authorization: 'Bearer wrong' } }),
      createRequest('{"id":1,"name":"a"}', { headers: { origin: ORIGIN }, path: '/nope' }),
      createRequest('{', { headers: { origin: ORIGIN } }),
    ];
    const statuses = [];
    for (const req of requests) {
      const res = await app.fetch(req);
      statuses.push(res.status);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id, WWW-Authenticate, Retry-After');
      expect(res.headers.get('vary')).toBe('Origin');
    }
    expect(statuses).toEqual([200, 401, 404, 400]);
  });

  it('echoes any origin when origins is "*"', async () => {
    const app = makeApp({ cors: { origins: '*' } });
    const res = await app.fetch(
      createRequest('{"id":1,"name":"a"}', { headers: { origin: 'https://anywhere.example' } }),
    );
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anywhere.example');
  });

  it('adds no CORS headers for a request from a disallowed origin or without one', async () => {
    const app = makeApp({ cors: { origins: [ORIGIN] } });
    const cases: Array<Record<string, string>> = [{ origin: 'https://evil.example' }, {}];
    for (const headers of cases) {
      const res = await app.fetch(createRequest('{"id":1,"name":"a"}', { headers }));
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')).toBeNull();
    }
  });

  it('refuses origins with a trailing slash, empty origins and a negative max age at creation', () => {
    expect(() => makeApp({ cors: { origins: ['https://app.example/'] } })).toThrow(TypeError);
    expect(() => makeApp({ cors: { origins: [''] } })).toThrow(TypeError);
    // Regression: these were accepted, and no browser's Origin header can ever equal them.
    for (const origin of [
      'app.example',
      'https://app.example/x',
      'https://App.example',
      'https://app.example:443',
      'null',
    ]) {
      expect(() => makeApp({ cors: { origins: [origin] } }), origin).toThrow(/origins as browsers send them/);
    }
    expect(makeApp({ cors: { origins: ['https://app.example', 'http://localhost:5173'] } })).toBeDefined();
    expect(() => makeApp({ cors: { origins: '*', maxAge: -1 } })).toThrow(TypeError);
  });
});
