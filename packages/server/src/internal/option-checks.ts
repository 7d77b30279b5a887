// The rules of the server's options that the core does not know: its ports and the proxies it
// trusts. The server applies them when it starts, and the CLI to a flag's value as soon as it reads it,
// so both take and refuse the same values in the same words.

/** Proxies whose `X-Forwarded-For` is believed when `trustProxy` is not given: none, the socket's peer counts. */
export const DEFAULT_TRUST_PROXY = 0;

/** `port` when it is a TCP port number (0: any free one); a RangeError, naming it `name`, otherwise. */
export function checkPort(port: number, name: string): number {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`${name} must be an integer from 0 to 65535, got ${String(port)}`);
  }
  return port;
}

/** `hops` when it is a usable `trustProxy`; a TypeError otherwise. */
export function checkTrustProxy(hops: number): number {
  // More hops than any real chain of proxies is a typo, not a deployment.
  if (!Number.isSafeInteger(hops) || hops < 0 || hops > 32)
    throw new TypeError('trustProxy must be a whole number of proxies from 0 to 32');
  return hops;
}
