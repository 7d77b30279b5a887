// checkAppOption is the app's own rule for one option: for every value, it takes what
// createPlantStoreApp takes and refuses what it refuses, with the same message.
import { expect, it } from 'vitest';
import {
  type CheckedAppOptions,
  checkAppOption,
  createPlantStoreApp,
  type PlantStoreAppOptions,
} from '../src/index.js';

const JWT = { jwks: { keys: [] }, issuer: 'https://issuer.example/', audience: 'plants' };

/** The app's options with `value` as option `name`. */
const APP_OPTIONS: { [K in keyof CheckedAppOptions]: (value: CheckedAppOptions[K]) => PlantStoreAppOptions } = {
  bodyLimit: (bodyLimit) => ({ tokens: ['t'], bodyLimit }),
  'auth.rateLimit': (rateLimit) => ({ tokens: ['t'], auth: { rateLimit } }),
  'auth.failedAuthLimit': (failedAuthLimit) => ({ tokens: ['t'], auth: { failedAuthLimit } }),
  'auth.jwt.clockTolerance': (clockTolerance) => ({ auth: { jwt: { ...JWT, clockTolerance } } }),
  'auth.jwt.jwks': (jwks) => ({ auth: { jwt: { ...JWT, jwks } } }),
};

/** The message of what `run` throws, which must be a TypeError, or undefined when it throws nothing. */
function refusal(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  return undefined;
}

const rates = [
  [{ requests: 1, seconds: 0.5 }, true],
  [{ requests: 100, seconds: 1 }, true],
  [{ requests: 1, seconds: 86_400 }, true],
  [{ requests: 0, seconds: 1 }, false],
  [{ requests: 1.5, seconds: 1 }, false],
  [{ requests: 2 ** 53, seconds: 1 }, false],
  [{ requests: 1, seconds: 0 }, false],
  [{ requests: 1, seconds: 86_400.5 }, false],
  [{ requests: 1, seconds: Number.NaN }, false],
] as const;

const cases: { [K in keyof CheckedAppOptions]: readonly (readonly [CheckedAppOptions[K], boolean])[] } = {
  bodyLimit: [
    [0, true],
    [1_048_576, true],
    [Number.MAX_SAFE_INTEGER, true],
    [-1, false],
    [1.5, false],
    [2 ** 53, false],
  ],
  'auth.rateLimit': rates,
  'auth.failedAuthLimit': rates,
  'auth.jwt.clockTolerance': [
    [0, true],
    [1.5, true],
    [3600, true],
    [-1, false],
    [3600.5, false],
    [Number.POSITIVE_INFINITY, false],
  ],
  'auth.jwt.jwks': [
    [{ keys: [] }, true],
    ['https://issuer.example/jwks.json', true],
    ['http://localhost:8080/jwks.json', true],
    ['http://issuer.example/jwks.json', false],
    ['not a url', false],
    [{ kty: 'EC' } as unknown as { keys: object[] }, false],
  ],
};

function agree<K extends keyof CheckedAppOptions>(name: K): void {
  for (const [value, taken] of cases[name]) {
    const app = refusal(() => createPlantStoreApp(APP_OPTIONS[name](value)));
    expect({ value, taken: app === undefined }).toEqual({ value, taken });
    expect(refusal(() => checkAppOption(name, value))).toBe(app);
    if (taken) expect(checkAppOption(name, value)).toBe(value);
  }
}

for (const name of Object.keys(cases) as (keyof CheckedAppOptions)[]) {
  it(`takes and refuses the values of ${name} that createPlantStoreApp takes and refuses, in its words`, () => {
    agree(name);
  });
}
