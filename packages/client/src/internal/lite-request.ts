/** What {@link liteRequest} makes: the arguments of one fetch call. */
export type LiteRequest = [url: string, init: RequestInit];

/**
 * Stands in for `Request` inside openapi-fetch (its `Request` option; it is called with `new`, and
 * returning an object from a constructor function makes that object the result). openapi-fetch
 * builds a `Request` per call and hands it to fetch, which in undici parses and copies it into a
 * second one: two URL parses, two header copies and a body stream per call. Passing the URL and
 * init straight to fetch is most of what keeps `createPlant` as cheap as calling fetch by hand.
 */
export function liteRequest(url: string, init: RequestInit): LiteRequest {
  return [url, init];
}
