import {
  createPlantStoreApp,
  type MemoryStore,
  type PlantStore,
  type PlantStoreAppOptions,
  type PlantStoreRequest,
} from '../src/index.js';

export const TOKEN = 'test-token-1';
export const URL_BASE = 'http://plants.test';

/** An app with one accepted token, plus whatever the test overrides. */
export function makeApp<S extends PlantStore = MemoryStore>(options: Partial<PlantStoreAppOptions<S>> = {}) {
  return createPlantStoreApp<S>({ tokens: [TOKEN], ...options });
}

/** A well-formed create: POST /plants with the test token and a JSON body. */
export function createRequest(
  body: string | Uint8Array<ArrayBuffer>,
  init: { headers?: Record<string, string>; path?: string } = {},
) {
  return new Request(URL_BASE + (init.path ?? '/plants'), {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers },
    body,
  });
}

/** The parsed JSON body and the headers of a response. */
export async function read(response: Response) {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** A plain request for `handle`, recording whether and how its body was read. */
export function plainRequest(
  init: { method?: string; path?: string; headers?: Record<string, string>; body?: string | null } = {},
) {
  const headers = new Map(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const reads: number[] = [];
  const request: PlantStoreRequest = {
    method: init.method ?? 'POST',
    path: init.path ?? '/plants',
    header: (name) => headers.get(name) ?? null,
    readBody: async (limit) => {
      reads.push(limit);
      const bytes = new TextEncoder().encode(init.body ?? '');
      return bytes.byteLength > limit ? null : bytes;
    },
  };
  return { request, reads };
}

export const AUTH_JSON = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
