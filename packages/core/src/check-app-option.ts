// One option of createPlantStoreApp checked by the app's own rule before any app is made: a command
// line or a configuration file that reads a value refuses it in the app's words, and accepts what the
// app accepts. The app applies the same functions to its options.
import type { JwtAuthOptions, RateLimit } from './auth-options.js';
import { checkBodyLimit } from './internal/app-options.js';
import { checkClockTolerance, checkJwks } from './internal/jwt-verifier.js';
import { checkRateLimit } from './internal/rate-limiter.js';

/** The options {@link checkAppOption} checks, by their path in the app's options, and their values. */
export interface CheckedAppOptions {
  readonly bodyLimit: number;
  readonly 'auth.rateLimit': RateLimit;
  readonly 'auth.failedAuthLimit': RateLimit;
  readonly 'auth.jwt.clockTolerance': number;
  readonly 'auth.jwt.jwks': NonNullable<JwtAuthOptions['jwks']>;
}

const CHECKS: { readonly [K in keyof CheckedAppOptions]: (value: CheckedAppOptions[K]) => unknown } = {
  bodyLimit: checkBodyLimit,
  'auth.rateLimit': (limit) => checkRateLimit(limit, 'auth.rateLimit'),
  'auth.failedAuthLimit': (limit) => checkRateLimit(limit, 'auth.failedAuthLimit'),
  'auth.jwt.clockTolerance': checkClockTolerance,
  'auth.jwt.jwks': checkJwks,
};

/**
 * Checks one option as {@link createPlantStoreApp} does: returns `value` when the app would take it,
 * and throws the app's TypeError, which names the option, when it would not.
 *
 * @example
 * checkAppOption('auth.rateLimit', { requests: 1, seconds: 0.5 }); // taken
 * checkAppOption('bodyLimit', -1); // TypeError: bodyLimit must be a whole number of bytes, 0 or more
 */
export function checkAppOption<K extends keyof CheckedAppOptions>(
  name: K,
  value: CheckedAppOptions[K],
): CheckedAppOptions[K] {
  CHECKS[name](value);
  return value;
}
