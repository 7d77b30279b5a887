import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/index.js';
import { createRequest, makeApp, plainRequest, read, TOKEN } from './helpers.js';

const BODY = '{"id":1,"name":"a"}';
const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID = 'Bearer realm="plant-store", error="invalid_token"';

function withAuth(authorization: string | null) {
  const req = createRequest(BODY);
  if (authorization === null) req.headers.delete('authorization');
  else req.headers.set('authorization', authorization);
  return req;
}

describe('bearer authentication', () => {
  it('answers 401 with a Bearer challenge when the token is missing', async () => {
    const app = makeApp();
    const res = await read(await app.fetch(withAuth(null)));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json).toEqual({
      error: ErrorCode.MISSING_CREDENTIALS,
      message: 'an Authorization header with a Bearer token is required',
    });
  });

  it('answers 401 40101 for another scheme and for Bearer with no token', async () => {
    const app = makeApp();
    for (const header of [
      'Basic dXNlcjpwYXNz',
      `Token ${TOKEN}`,
      'Bearer',
      'Bearer   ',
      `Bearer${TOKEN}`,
      `Bearer-${TOKEN}`,
      '',
    ]) {
      const res = await read(await app.fetch(withAuth(header)));
      expect(res.status, header).toBe(401);
      expect(res.json.error, header).toBe(ErrorCode.MISSING_CREDENTIALS);
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
    }
  });

  it('answers 401 40102 with error="invalid_token" for a token that is not accepted', async () => {
    const app = makeApp();
    for (const header of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      'Bearer other',
      `Bearer ${TOKEN} extra`,
      'Bearer a,b',
      `Bearer ${TOKEN.toUpperCase()}`,
    ]) {
      const res = await read(await app.fetch(withAuth(header)));
      expect(res.status, header).toBe(401);
      expect(res.json, header).toEqual({ error: ErrorCode.INVALID_TOKEN, message: 'the bearer token is not accepted' });
      expect(res.headers.get('www-authenticate')).toBe(INVALID);
    }
  });

  it('accepts the scheme name in any case and several spaces before the token', async () => {
    const app = makeApp();
    for (const [i, header] of [`bearer ${TOKEN}`, `BEARER ${TOKEN}`, `bEaReR   ${TOKEN}`].entries()) {
      const res = await app.fetch(new Request(withAuth(header), { body: `{"id":${i},"name":"a"}`, method: 'POST' }));
      expect(res.status, header).toBe(200);
    }
  });

  it('accepts any of several configured tokens', async () => {
    const app = makeApp({ tokens: ['first', 'second-token', 'x'] });
    for (const token of ['first', 'second-token', 'x'])
      expect((await app.fetch(withAuth(`Bearer ${token}`))).status).toBe(200);
    for (const token of ['firs', 'second', 'xx', 'second-tokenx'])
      expect((await app.fetch(withAuth(`Bearer ${token}`))).status).toBe(401);
  });

  it('accepts any well-formed token68 with tokens: "any", and still refuses missing or malformed ones', async () => {
    const app = makeApp({ tokens: 'any' });
    for (const token of ['anything', 'a.b-c_d~e+f/g==', 'Z'])
      expect((await app.fetch(withAuth(`Bearer ${token}`))).status, token).toBe(200);
    expect((await read(await app.fetch(withAuth(null)))).json.error).toBe(ErrorCode.MISSING_CREDENTIALS);
    expect((await read(await app.fetch(withAuth('Bearer ')))).json.error).toBe(ErrorCode.MISSING_CREDENTIALS);
    expect((await read(await app.fetch(withAuth('Basic abc')))).json.error).toBe(ErrorCode.MISSING_CREDENTIALS);
    for (const token of ['has space', 'a=b', 'quote"', 'semi;', '==']) {
      expect((await read(await app.fetch(withAuth(`Bearer ${token}`)))).json.error, token).toBe(
        ErrorCode.INVALID_TOKEN,
      );
    }
  });

  it('judges credentials before the media type, the length and the body, and stores nothing', async () => {
    const app = makeApp();
    const { request, reads } = plainRequest({
      headers: { 'content-type': 'text/plain', 'content-length': '999999999' },
      body: BODY,
    });
    const res = await app.handle(request);
    expect(res.status).toBe(401);
    expect(reads).toEqual([]);
    const bad = plainRequest({
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: BODY,
    });
    expect((await app.handle(bad.request)).status).toBe(401);
    expect(bad.reads).toEqual([]);
    expect(await app.store.size()).toBe(0);
  });

  it('refuses tokens the client could never send (not token68) at creation', () => {
    expect(() => makeApp({ tokens: ['ok', 'not ok'] })).toThrow(TypeError);
    expect(() => makeApp({ tokens: ['=abc'] })).toThrow(TypeError);
  });
});
