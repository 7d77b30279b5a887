// The one contract table: the rules of docs/service.md as requests and answers. Every case runs,
// unchanged, through the core in memory, the reference server over TCP, MSW's setupServer in Node
// and MSW's setupWorker in Chromium, and every transport must answer exactly what the core answers.
// A case a transport cannot express names the transport and the reason in `except`.
import type { ContractCase, ContractStep, RawRequest } from './harness.js';

/** The token every case's service accepts (strict by default, like the server). */
export const TOKEN = 'contract-token-1';

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { 'content-type': 'application/json' };

/** A create with the case's token and JSON media type; `body` is sent as raw text or bytes. */
function post(
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = {},
  path = '/plants',
): RawRequest {
  return { method: 'POST', path, headers: { ...auth, ...json, ...headers }, body };
}

const ok = (request: RawRequest, plant: { name: string; tag?: string }): ContractStep => ({
  request,
  expect: { status: 200, json: plant },
});
const fails = (request: RawRequest, status: number, error: number, headers?: Record<string, string>): ContractStep => ({
  request,
  expect: { status, error, ...(headers && { headers }) },
});

/**
 * An ES256 public key and two tokens it verifies (valid until 2100; the private key was dropped after
 * signing): one for this service's audience, one for another.
 */
export const CONTRACT_JWT = {
  jwks: {
    keys: [
      {
        kty: 'EC',
        x: 'Os5VnFXm6PiUFr_6IzWKahcrs277RpZSnVGM_5lfNuU',
        y: 'aXOFbHN6KLFjuxzGvqLwYRxvi7N_pLVHll7ADugqeSQ',
        crv: 'P-256',
        kid: 'contract-es256',
        alg: 'ES256',
      },
    ],
  },
  issuer: 'https://idp.contract.test/',
  audience: 'plant-store',
};
export const JWT_VALID =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImNvbnRyYWN0LWVzMjU2In0.eyJzdWIiOiJjb250cmFjdC11c2VyIiwiaXNzIjoiaHR0cHM6Ly9pZHAuY29udHJhY3QudGVzdC8iLCJhdWQiOiJwbGFudC1zdG9yZSIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.TA26GMF34dBKVWEqUmGVOMhT5EJOMtYNU_hI6pt4OLsucd3BL8RLcPLWoyfIZhGK7hfBCyp4M8hgtgGeuRRFAA';
export const JWT_OTHER_AUDIENCE =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImNvbnRyYWN0LWVzMjU2In0.eyJzdWIiOiJjb250cmFjdC11c2VyIiwiaXNzIjoiaHR0cHM6Ly9pZHAuY29udHJhY3QudGVzdC8iLCJhdWQiOiJhbm90aGVyLWFwaSIsImlhdCI6MTc2NzIyNTYwMCwiZXhwIjo0MTAyNDQ0ODAwfQ.gK0auBzLrk4di90WB01Ze-aFgRgJfibHTYDe4Nlovpcw0fK2AzUrljD-vdwsf9iTrbE6LqRbfztVVM2MVG8UOA';

const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
const notMsw = (reason: string) => ({ 'msw-node': reason, 'msw-browser': reason });
const OUTSIDE_BASE = 'outside the base URL: MSW leaves requests it does not own to the network';

/** Every case, in the order they are reported. */
export const cases: readonly ContractCase[] = [
  // Success, replay and conflict (idempotency by id)
  {
    name: 'creates a plant with a tag',
    steps: [ok(post('{"id":1,"name":"Rose","tag":"flower"}'), { name: 'Rose', tag: 'flower' })],
  },
  { name: 'creates a plant without a tag', steps: [ok(post('{"id":2,"name":"Fern"}'), { name: 'Fern' })] },
  { name: 'accepts the empty string as a name', steps: [ok(post('{"id":3,"name":""}'), { name: '' })] },
  {
    name: 'replays a create of the same plant with 200 and the same body',
    steps: [
      ok(post('{"id":7,"name":"Ivy","tag":"vine"}'), { name: 'Ivy', tag: 'vine' }),
      ok(post('{"tag":"vine","name":"Ivy","id":7}'), { name: 'Ivy', tag: 'vine' }),
    ],
  },
  {
    name: 'answers 40003 for the same id with another name and keeps the first plant',
    steps: [
      ok(post('{"id":8,"name":"Oak"}'), { name: 'Oak' }),
      fails(post('{"id":8,"name":"Elm"}'), 400, 40003),
      ok(post('{"id":8,"name":"Oak"}'), { name: 'Oak' }),
    ],
  },
  {
    name: 'answers 40003 for the same id with a tag where the stored plant has none',
    steps: [
      ok(post('{"id":9,"name":"Moss"}'), { name: 'Moss' }),
      fails(post('{"id":9,"name":"Moss","tag":"green"}'), 400, 40003),
    ],
  },
  {
    name: 'accepts unknown fields, never echoes nor stores them',
    steps: [
      ok(post('{"id":10,"name":"Sage","secret":"s3cr3t","nested":{"a":[1,2]}}'), { name: 'Sage' }),
      ok(post('{"id":10,"name":"Sage","other":true}'), { name: 'Sage' }),
    ],
  },

  // 40001: not JSON
  { name: 'answers 40001 for an empty body', steps: [fails(post(''), 400, 40001)] },
  { name: 'answers 40001 for malformed JSON', steps: [fails(post('{"id":1,'), 400, 40001)] },
  {
    name: 'answers 40001 for trailing garbage after the JSON value',
    steps: [fails(post('{"id":1,"name":"a"} x'), 400, 40001)],
  },
  {
    name: 'answers 40001 for a body that is not valid UTF-8',
    steps: [
      fails(
        post(new Uint8Array([...new TextEncoder().encode('{"id":1,"name":"'), 0xff, 0xfe, 0x22, 0x7d])),
        400,
        40001,
      ),
    ],
  },

  // 40002: JSON but not a NewPlant
  { name: 'answers 40002 for a JSON array', steps: [fails(post('[]'), 400, 40002)] },
  { name: 'answers 40002 for JSON null', steps: [fails(post('null'), 400, 40002)] },
  { name: 'answers 40002 when the id is missing', steps: [fails(post('{"name":"Rose"}'), 400, 40002)] },
  { name: 'answers 40002 when the name is missing', steps: [fails(post('{"id":1}'), 400, 40002)] },
  { name: 'answers 40002 when the id is a string', steps: [fails(post('{"id":"1","name":"Rose"}'), 400, 40002)] },
  { name: 'answers 40002 when the id is null', steps: [fails(post('{"id":null,"name":"Rose"}'), 400, 40002)] },
  { name: 'answers 40002 when the id is a fraction', steps: [fails(post('{"id":1.5,"name":"Rose"}'), 400, 40002)] },
  { name: 'answers 40002 when the name is a number', steps: [fails(post('{"id":1,"name":5}'), 400, 40002)] },
  { name: 'answers 40002 when the tag is null', steps: [fails(post('{"id":1,"name":"Rose","tag":null}'), 400, 40002)] },
  {
    name: 'answers 40002 for the id 2^63, one past the int64 range',
    steps: [fails(post('{"id":9223372036854775808,"name":"Big"}'), 400, 40002)],
  },
  {
    name: 'answers 40002 for the id -2^63-1, one below the int64 range',
    steps: [fails(post('{"id":-9223372036854775809,"name":"Small"}'), 400, 40002)],
  },
  {
    name: 'answers 40002 for the id 1.00000000000000000001, which JSON.parse would round to 1',
    steps: [fails(post('{"id":1.00000000000000000001,"name":"Almost"}'), 400, 40002)],
  },

  // int64 ids are kept exactly
  {
    name: 'keeps 2^53+1 apart from 2^53, which a double would merge',
    steps: [
      ok(post('{"id":9007199254740993,"name":"A"}'), { name: 'A' }),
      ok(post('{"id":9007199254740992,"name":"B"}'), { name: 'B' }),
      fails(post('{"id":9007199254740993,"name":"B"}'), 400, 40003),
    ],
  },
  {
    name: 'accepts the int64 edges -2^63 and 2^63-1 and keeps them exactly',
    steps: [
      ok(post('{"id":-9223372036854775808,"name":"Min"}'), { name: 'Min' }),
      ok(post('{"id":9223372036854775807,"name":"Max"}'), { name: 'Max' }),
      ok(post('{"id":9223372036854775806,"name":"Max-1"}'), { name: 'Max-1' }),
      ok(post('{"id":9223372036854775807,"name":"Max"}'), { name: 'Max' }),
    ],
  },

  // 401: authentication, judged before the body
  {
    name: 'answers 40101 with a Bearer challenge when the Authorization header is missing',
    steps: [
      fails({ method: 'POST', path: '/plants', headers: json, body: '{"id":1,"name":"a"}' }, 401, 40101, {
        'www-authenticate': CHALLENGE,
      }),
    ],
  },
  {
    name: 'answers 40101 for another scheme',
    steps: [
      fails(post('{"id":1,"name":"a"}', { authorization: `Basic ${TOKEN}` }), 401, 40101, {
        'www-authenticate': CHALLENGE,
      }),
    ],
  },
  {
    name: 'answers 40101 for Bearer with no token',
    steps: [
      fails(post('{"id":1,"name":"a"}', { authorization: 'Bearer' }), 401, 40101, { 'www-authenticate': CHALLENGE }),
    ],
  },
  {
    name: 'answers 40102 with invalid_token for a token that is not accepted',
    steps: [
      fails(post('{"id":1,"name":"a"}', { authorization: 'Bearer not-the-token' }), 401, 40102, {
        'www-authenticate': INVALID_TOKEN,
      }),
    ],
  },
  {
    name: 'accepts the scheme name in lower case',
    steps: [ok(post('{"id":1,"name":"a"}', { authorization: `bearer ${TOKEN}` }), { name: 'a' })],
  },
  {
    name: 'judges authentication before the body and stores nothing for a rejected request',
    steps: [
      fails(post('not json', { authorization: 'Bearer wrong' }), 401, 40102, { 'www-authenticate': INVALID_TOKEN }),
      fails(post('{"id":11,"name":"Thief"}', { authorization: 'Bearer wrong' }), 401, 40102),
      ok(post('{"id":11,"name":"Owner"}'), { name: 'Owner' }),
    ],
  },
  {
    name: 'accepts any well-formed bearer token when tokens is "any", still 401 without one',
    config: { tokens: 'any' },
    steps: [
      ok(post('{"id":1,"name":"a"}', { authorization: 'Bearer whatever-1' }), { name: 'a' }),
      fails({ method: 'POST', path: '/plants', headers: json, body: '{"id":1,"name":"a"}' }, 401, 40101, {
        'www-authenticate': CHALLENGE,
      }),
      fails(post('{"id":1,"name":"a"}', { authorization: 'Bearer' }), 401, 40101),
    ],
  },
  {
    name: 'accepts a token given by its SHA-256 entry, and refuses the hash itself as a token',
    // sha256 of "contract-hashed-token", as a token file would hold it.
    config: { tokens: ['sha256:9fe3b80dcebe08ece730fa89bb57165add5fc828f0828358bfccfb6ec734920d'] },
    steps: [
      ok(post('{"id":1,"name":"a"}', { authorization: 'Bearer contract-hashed-token' }), { name: 'a' }),
      fails(
        post('{"id":2,"name":"b"}', {
          authorization: 'Bearer 9fe3b80dcebe08ece730fa89bb57165add5fc828f0828358bfccfb6ec734920d',
        }),
        401,
        40102,
        { 'www-authenticate': INVALID_TOKEN },
      ),
    ],
  },
  {
    name: 'accepts a JWT signed by a key of the JWK Set beside the static token, and names why it refuses one',
    config: { jwt: CONTRACT_JWT },
    except: notMsw('the mocks take tokens only: with their default, "any", a JWT is accepted as any token is'),
    steps: [
      ok(post('{"id":1,"name":"a"}', { authorization: `Bearer ${JWT_VALID}` }), { name: 'a' }),
      ok(post('{"id":2,"name":"b"}'), { name: 'b' }),
      fails(post('{"id":3,"name":"c"}', { authorization: `Bearer ${JWT_OTHER_AUDIENCE}` }), 401, 40102, {
        'www-authenticate': `${INVALID_TOKEN}, error_description="the token is for another audience"`,
      }),
    ],
  },

  // 404, 405
  {
    name: 'answers 40401 for an unknown path',
    steps: [fails({ method: 'GET', path: '/nope', headers: auth }, 404, 40401)],
  },
  {
    name: 'answers 40401 for a path below /plants',
    steps: [fails(post('{"id":1,"name":"a"}', {}, '/plants/1'), 404, 40401)],
  },
  {
    name: 'answers 40501 with Allow: POST for GET /plants',
    steps: [fails({ method: 'GET', path: '/plants', headers: auth }, 405, 40501, { allow: 'POST' })],
  },
  {
    name: 'answers 40501 with Allow: POST for DELETE /plants',
    steps: [fails({ method: 'DELETE', path: '/plants', headers: auth }, 405, 40501, { allow: 'POST' })],
  },
  {
    name: 'answers 40501 with Allow: POST for PUT /plants with a body',
    steps: [
      fails(
        { method: 'PUT', path: '/plants', headers: { ...auth, ...json }, body: '{"id":1,"name":"a"}' },
        405,
        40501,
        { allow: 'POST' },
      ),
    ],
  },

  // 413
  {
    name: 'answers 41301 for a body over the limit',
    config: { bodyLimit: 64 },
    steps: [
      fails(post(`{"id":1,"name":"${'x'.repeat(100)}"}`), 413, 41301),
      ok(post('{"id":1,"name":"fits"}'), { name: 'fits' }),
    ],
  },
  {
    // 18 bytes of JSON around the name: the first body is exactly 1 MiB, the second one byte more.
    name: 'accepts a body of exactly 1 MiB and answers 41301 for one byte more',
    steps: [
      ok(post(`{"id":1,"name":"${'x'.repeat(1024 * 1024 - 18)}"}`), { name: 'x'.repeat(1024 * 1024 - 18) }),
      fails(post(`{"id":2,"name":"${'x'.repeat(1024 * 1024 - 17)}"}`), 413, 41301),
    ],
  },
  {
    name: 'answers 41301 by declared Content-Length before reading the body',
    config: { bodyLimit: 64 },
    steps: [fails(post('{"id":1,"name":"a"}', { 'content-length': '100000' }), 413, 41301)],
    // fetch refuses a Content-Length that disagrees with the body, so the server transport sends any
    // request carrying one on a raw socket.
    except: { 'msw-browser': 'browsers compute Content-Length themselves (a forbidden request header)' },
  },

  // 415
  {
    name: 'answers 41501 for text/plain',
    steps: [fails(post('{"id":1,"name":"a"}', { 'content-type': 'text/plain' }), 415, 41501)],
  },
  {
    name: 'answers 41501 when the Content-Type is missing',
    steps: [fails({ method: 'POST', path: '/plants', headers: auth, body: '{"id":1,"name":"a"}' }, 415, 41501)],
  },
  {
    name: 'answers 41501 for a charset other than utf-8',
    steps: [fails(post('{"id":1,"name":"a"}', { 'content-type': 'application/json; charset=iso-8859-1' }), 415, 41501)],
  },
  {
    name: 'accepts APPLICATION/JSON in any case',
    steps: [ok(post('{"id":1,"name":"a"}', { 'content-type': 'Application/JSON' }), { name: 'a' })],
  },
  {
    name: 'accepts application/json; charset=utf-8',
    steps: [ok(post('{"id":1,"name":"a"}', { 'content-type': 'application/json; charset=utf-8' }), { name: 'a' })],
  },

  // Request ids
  {
    name: 'replaces a request id that is not sane',
    steps: [
      {
        request: post('{"id":1,"name":"a"}', { 'x-request-id': 'has spaces and <html>' }),
        expect: { status: 200, json: { name: 'a' } },
      },
    ],
  },

  // Base path
  {
    name: 'serves createPlant under a base path /api',
    config: { basePath: '/api' },
    steps: [
      ok(post('{"id":1,"name":"a"}', {}, '/api/plants'), { name: 'a' }),
      fails({ method: 'GET', path: '/api/plants', headers: auth }, 405, 40501, { allow: 'POST' }),
      fails({ method: 'GET', path: '/api/nope', headers: auth }, 404, 40401),
    ],
  },
  {
    name: 'answers 40401 for /plants when the base path is /api',
    config: { basePath: '/api' },
    steps: [fails(post('{"id":1,"name":"a"}'), 404, 40401)],
    except: notMsw(OUTSIDE_BASE),
  },
];
