import { describe, expect, it } from 'vitest';
import { CONTRACT_JWT, JWT_OTHER_AUDIENCE } from '../../../test/contract/cases.js';
import { errorResponseAnswer } from '../src/create-error-response.js';
import {
  createErrorResponse,
  createMemoryStore,
  createPlantStoreApp,
  ErrorCode,
  type MemoryStore,
  type PlantStoreRequest,
  type PlantStoreResponse,
  StoreUnavailableError,
} from '../src/index.js';
import { TOKEN } from './helpers.js';

const AUTH = `Bearer ${TOKEN}`;
const JSON_TYPE = 'application/json';

/** A request for `handle` whose body may be any bytes. */
function request(
  init: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    clientAddress?: string;
  } = {},
): PlantStoreRequest {
  const headers = new Map(Object.entries(init.headers ?? {}));
  const body = init.body ?? '';
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return {
    method: init.method ?? 'POST',
    path: init.path ?? '/plants',
    header: (name) => headers.get(name) ?? null,
    readBody: async (limit) => (bytes.byteLength > limit ? null : bytes),
    clientAddress: init.clientAddress,
  };
}

/** A create with the test token and a JSON content type, plus `headers`. */
function create(body: string | Uint8Array, headers: Record<string, string> = {}, clientAddress?: string) {
  return request({ headers: { authorization: AUTH, 'content-type': JSON_TYPE, ...headers }, body, clientAddress });
}

/** A store whose insert throws `error`. */
function failingStore(error: unknown): MemoryStore {
  return { ...createMemoryStore(), insert: async () => Promise.reject(error) };
}

/** The body's `error`, checked against the answer's errorCode. */
function expectCodeOfBody(answer: PlantStoreResponse, label: string): number {
  const code = (JSON.parse(answer.body) as { error: number }).error;
  expect(answer.errorCode, label).toBe(code);
  return code;
}

describe('errorCode of the answers', () => {
  it("is the body's error on every Error answer the app gives, and every code the app answers with is met", async () => {
    const app = createPlantStoreApp({
      tokens: [TOKEN],
      bodyLimit: 64,
      auth: { rateLimit: { requests: 1, seconds: 3600 }, failedAuthLimit: { requests: 1, seconds: 3600 } },
    });
    const jwtApp = createPlantStoreApp({ tokens: [TOKEN], auth: { jwt: CONTRACT_JWT } });
    const unreachableKeys = createPlantStoreApp({
      auth: { jwt: { ...CONTRACT_JWT, jwks: 'http://127.0.0.1:1/jwks', jwksTimeout: 1000 } },
    });
    const broken = createPlantStoreApp({ tokens: [TOKEN], store: failingStore(new Error('disk on fire')) });
    const down = createPlantStoreApp({ tokens: [TOKEN], store: failingStore(new StoreUnavailableError('down')) });
    // The answers about the body, each from an app of its own so that no rate limit is met.
    const judge = (body: string | Uint8Array, headers: Record<string, string> = {}) =>
      createPlantStoreApp({ tokens: [TOKEN], bodyLimit: 64 }).handle(create(body, headers));

    const answers: [string, PlantStoreResponse][] = [
      ['not found', await app.handle(request({ path: '/nope' }))],
      ['method', await app.handle(request({ method: 'GET' }))],
      ['missing credentials', await app.handle(request())],
      ['invalid token', await app.handle(create('{}', { authorization: 'Bearer wrong' }, '192.0.2.1'))],
      ['failed authentications', await app.handle(create('{}', {}, '192.0.2.1'))],
      ['rate limit, first', await app.handle(create('{"id":1,"name":"a"}', {}, '192.0.2.2'))],
      ['rate limit', await app.handle(create('{"id":2,"name":"a"}', {}, '192.0.2.2'))],
      ['jwt reason', await jwtApp.handle(create('{}', { authorization: `Bearer ${JWT_OTHER_AUDIENCE}` }))],
      [
        'keys unreachable',
        await unreachableKeys.handle(create('{}', { authorization: `Bearer ${JWT_OTHER_AUDIENCE}` })),
      ],
      ['media type', await judge('{}', { 'content-type': 'text/plain' })],
      ['declared length', await judge('{}', { 'content-length': '65' })],
      ['read length', await judge('x'.repeat(65))],
      ['empty', await judge('')],
      ['blank', await judge('  ')],
      ['not utf-8', await judge(new Uint8Array([0x7b, 0xff, 0x7d]))],
      ['not json', await judge('{')],
      ['not a plant', await judge('[]')],
      ['no id', await judge('{"name":"a"}')],
      ['name type', await judge('{"id":1,"name":1}')],
      ['internal', await broken.handle(create('{"id":1,"name":"a"}'))],
      ['unavailable', await down.handle(create('{"id":1,"name":"a"}'))],
    ];
    const conflictApp = createPlantStoreApp({ tokens: [TOKEN] });
    await conflictApp.handle(create('{"id":1,"name":"a"}'));
    answers.push(['conflict', await conflictApp.handle(create('{"id":1,"name":"b"}'))]);

    const met = new Set<number>();
    for (const [label, answer] of answers) {
      if (answer.status === 200) {
        expect('errorCode' in answer, label).toBe(false);
        continue;
      }
      met.add(expectCodeOfBody(answer, label));
    }
    // The two codes only the server's HTTP layer sends are the only ones missing.
    const appCodes = Object.values(ErrorCode).filter(
      (code) => code !== ErrorCode.REQUEST_TIMEOUT && code !== ErrorCode.HEADERS_TOO_LARGE,
    );
    expect([...met].sort()).toEqual([...appCodes].sort());
  });

  it('is absent on a success and on the 204 preflight', async () => {
    const app = createPlantStoreApp({ tokens: [TOKEN], cors: { origins: ['https://app.example'] } });
    const created = await app.handle(create('{"id":1,"name":"a"}'));
    expect(created.status).toBe(200);
    expect('errorCode' in created).toBe(false);
    const preflight = await app.handle(
      request({
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
      }),
    );
    expect(preflight.status).toBe(204);
    expect('errorCode' in preflight).toBe(false);
  });

  it("is the body's error on every answer createErrorResponse builds, which sends that body", async () => {
    for (const code of Object.values(ErrorCode)) {
      for (const message of [undefined, 'a message of its own']) {
        const answer = errorResponseAnswer(code, message, {});
        expect(expectCodeOfBody(answer, String(code))).toBe(code);
        const response = createErrorResponse(code, message);
        expect(response.status).toBe(answer.status);
        expect(await response.text()).toBe(answer.body);
      }
    }
  });
});
