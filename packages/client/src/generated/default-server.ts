// This file is generated from openapi.yaml by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

/** The reference server's default address (the spec's first `servers` entry): where clients and mocks point by default. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:4010";
/** The host of {@link DEFAULT_BASE_URL}: the interface the reference server listens on by default. */
export const DEFAULT_HOST = "127.0.0.1";
/** The port of {@link DEFAULT_BASE_URL}: the reference server's default port. */
export const DEFAULT_PORT = 4010;
