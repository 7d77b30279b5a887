// This file is generated from openapi.yaml by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

export interface paths {
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a plant
         * @description Creates a new plant in the store.
         *
         *     Idempotent by id: a create whose id is stored already with every other field the same
         *     answers 200 with the same Plant and stores nothing new, so a client may retry a create
         *     whose answer it never received. The same id with any field different is a 400 with
         *     error code 40003 and changes nothing.
         *
         *     Authentication is judged before the body; a request that fails it has no effect.
         *     The path is compared exactly, after any base path and with the query string dropped:
         *     `/plants/` and `/Plants` are other paths (404).
         */
        post: operations["createPlant"];
        delete?: never;
        /**
         * CORS preflight
         * @description Answered only when the server runs with CORS origins configured (off by default; then
         *     `OPTIONS` is a 405 like any other method). A preflight from an allowed origin needs no
         *     credentials and gets `Access-Control-Allow-Methods: POST` and
         *     `Access-Control-Allow-Headers: Authorization, Content-Type, X-Request-Id`.
         */
        options: operations["preflightPlants"];
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Plant: {
            /**
             * @description The name of the plant
             * @example Fern
             * @example Ivy
             * @example Moss
             * @example Oak
             * @example Rose
             * @example Sage
             * @example Basil
             * @example Mint
             * @example Thyme
             * @example Aloe
             * @example Lily
             * @example Orchid
             * @example Tulip
             * @example Daisy
             * @example Maple
             * @example Palm
             * @example Bamboo
             * @example Lavender
             * @example Rosemary
             * @example Violet
             * @example Jasmine
             * @example Yucca
             * @example Begonia
             * @example Giant Sequoia
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example shade
             * @example sun
             * @example succulent
             * @example herb
             * @example vine
             * @example flower
             * @example tree
             */
            tag?: string;
        };
        NewPlant: components["schemas"]["Plant"] & {
            /**
             * Format: int64
             * @description Identification number of the plant. Every integer in [-2^63, 2^63-1] is accepted
             *     and kept exactly (never rounded to a JavaScript double).
             */
            id: number;
        };
        Error: {
            /**
             * Format: int32
             * @description Numeric error value; see `x-error-codes` for each code's meaning. Each entry's `description`
             *     says when it is answered, its `remedy` what the caller does about it, and its `userMessage`
             *     is a short sentence an app may show a person ("This id is already taken."). Entries marked
             *     `transport` are answered by the reference server's HTTP layer alone, never by the core or
             *     the mocks.
             */
            error: number;
            /** @description Text of the error in English, written for the developer (`userMessage` is for a person using an app); names the field and the rule where there is one. */
            message: string;
        };
    };
    responses: {
        /** @description No such path. Error code `40401`. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /**
         * @description A caller-chosen request id (1 to 128 characters of `A-Z a-z 0-9 - _ . : /`), echoed
         *     in the response's `X-Request-Id`; any other value is replaced by a generated id.
         */
        RequestId: string;
    };
    requestBodies: never;
    headers: {
        /** @description The request id, the caller's when it sent a sane one, otherwise generated. */
        RequestId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description A caller-chosen request id (1 to 128 characters of `A-Z a-z 0-9 - _ . : /`), echoed
                 *     in the response's `X-Request-Id`; any other value is replaced by a generated id.
                 */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description Plant to add to the store. Unknown fields are accepted, ignored, never stored and never echoed. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Plant response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /**
             * @description Bad request. Error codes:
             *     - `40001`: the body is not JSON (includes an empty body and invalid UTF-8); also the
             *       server's answer to a request it cannot parse as HTTP/1.1 (bad framing, no `Host`).
             *     - `40002`: the body is JSON but not a NewPlant (not an object, a field missing, of the wrong type, outside its rules).
             *     - `40003`: the id is stored already with a different value of another field.
             */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Error codes:
             *     - `40101`: no usable credentials (no `Authorization` header, another scheme, `Bearer` with no token).
             *     - `40102`: a bearer token that is not accepted.
             */
            401: {
                headers: {
                    /** @description RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_token"` for 40102, and for a refused JWT an `error_description` naming the reason (expired, not valid yet, another issuer or audience, unknown key, algorithm not accepted, ...); never the token. */
                    "WWW-Authenticate"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            404: components["responses"]["NotFound"];
            /**
             * @description Method not allowed on `/plants`. Error code `40501`. The `Allow` header lists `POST`
             *     (and `OPTIONS` where CORS is on).
             */
            405: {
                headers: {
                    /** @description The methods `/plants` answers. */
                    Allow?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Sent by the reference server on its own when the request line, headers or body did not
             *     arrive within its timeouts (slow clients are cut off within seconds). Error code `40801`.
             *     The connection is closed after it.
             */
            408: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description The body is over the limit (1 MiB by default), by declared `Content-Length` or while
             *     streaming. Error code `41301`.
             */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description The media type is not JSON (`application/json`, any case, optional `charset=utf-8`).
             *     Error code `41501`.
             */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too many requests. Error code `42901`: the credential (a token entry, or a JWT's
             *     subject) is over the server's rate limit, or the client address failed authentication
             *     too often. Sent only by a server that sets those limits. Nothing was stored; retry after
             *     `Retry-After`.
             */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Sent by the reference server on its own when the request line and headers are over its
             *     header size limit (16 KiB). Error code `43101`. The connection is closed after it.
             */
            431: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault. Error code `50001`; the message says nothing about internals. */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description The store is unavailable (its database cannot be reached, or a write's outcome is
             *     unknown): error code `50301`. Or the bearer token cannot be checked now (a JWT whose
             *     signing keys the server cannot fetch from the identity provider): error code `50302`.
             *     Nothing was acknowledged: retrying the same create after `Retry-After` is safe, since a
             *     create is idempotent by id.
             */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying. */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    preflightPlants: {
        parameters: {
            query?: never;
            header?: {
                /** @description The calling page's origin. */
                Origin?: string;
                /** @description The method the browser is about to send (`POST`). */
                "Access-Control-Request-Method"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Preflight accepted; `Allow: POST, OPTIONS`. */
            204: {
                headers: {
                    /** @description The methods `/plants` answers. */
                    Allow?: string;
                    /** @description The calling origin, when it is allowed. */
                    "Access-Control-Allow-Origin"?: string;
                    /** @description `POST` */
                    "Access-Control-Allow-Methods"?: string;
                    /** @description `Authorization, Content-Type, X-Request-Id` */
                    "Access-Control-Allow-Headers"?: string;
                    /** @description How long the browser may cache the preflight, in seconds. */
                    "Access-Control-Max-Age"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description CORS is off. Error code `40501`. */
            405: {
                headers: {
                    /** @description `POST` */
                    Allow?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
