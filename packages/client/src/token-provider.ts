/**
 * Gives `createPlant` its bearer token, for apps whose tokens expire: called with `refresh: false`
 * before a create's first attempt (answer from a cache), and with `refresh: true` once the service
 * refused the token it gave (`401`, code `40102`): get a new one, and the create is sent again with it.
 * A refusal is refreshed once per call, and calls refused with the same token share that one refresh.
 * What it throws rejects the call as it is; a token that is not a token68 string (letters, digits
 * and `-._~+/`, then any `=`) rejects it with a `TypeError`. Neither sends anything.
 * @example
 * const token: TokenProvider = ({ refresh }) => (refresh ? auth.renewAccessToken() : auth.accessToken);
 * await createPlant(token, { id: 1, name: 'Fern' });
 */
export type TokenProvider = (request: { refresh: boolean }) => string | Promise<string>;

/** Asks `provider` for a token and checks that it can be sent as `Bearer <token>`. */
export async function tokenFrom(provider: TokenProvider, refresh: boolean): Promise<string> {
  const token = await provider({ refresh });
  if (typeof token === 'string' && /^[\w.~+/-]+=*$/.test(token)) return token;
  // The token itself stays out of the message: a secret must not reach the logs that errors go to.
  throw new TypeError('the token provider gave no token68 string');
}

// Per provider, the last token the service refused and the refresh that answers it: calls refused
// with that token, during the refresh or after it, get its new token without asking the provider again.
const refreshes = new WeakMap<TokenProvider, [refused: string, token: Promise<string>]>();

/** The new token for `refused`: one `refresh: true` call of `provider`, shared by every call that waits for it. */
export function refreshedToken(provider: TokenProvider, refused: string): Promise<string> {
  const entry = refreshes.get(provider);
  if (entry?.[0] === refused) return entry[1];
  const fresh = tokenFrom(provider, true);
  const mine: [string, Promise<string>] = [refused, fresh];
  refreshes.set(provider, mine);
  // A refresh that failed is forgotten, so that the next refusal asks again.
  fresh.catch(() => {
    if (refreshes.get(provider) === mine) refreshes.delete(provider);
  });
  return fresh;
}
