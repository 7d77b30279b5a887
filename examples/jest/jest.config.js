// Jest 30 for a React app mocked with msw (and @plant-store/msw): copy the three settings below.
/** @type {import('jest').Config} */
module.exports = {
  // jsdom with Node's own fetch, Request, Response, TextEncoder, streams and structuredClone, which
  // plain `jsdom` leaves out (msw needs them: there every suite stops at a ReferenceError for one),
  // and package exports read with Node's conditions rather than the browser's.
  testEnvironment: 'jest-fixed-jsdom',
  // Some of msw's dependencies ship ES modules only (`.mjs` among them); Jest's CommonJS runtime needs
  // them transformed, so babel-jest takes `.mjs` too and these packages are not ignored.
  transform: { '\\.[cm]?[jt]sx?$': 'babel-jest' },
  transformIgnorePatterns: [
    '/node_modules/(?!(until-async|@open-draft/deferred-promise|rettime|@msw/url|headers-polyfill|type-fest)/)',
  ],
  setupFiles: ['<rootDir>/jest.setup.js'],
  testMatch: ['<rootDir>/src/**/*.spec.tsx'],
  // Room for a loaded CI machine; no test asserts a time.
  testTimeout: 30_000,
};
