// SIGHUP re-reads the token file, in the single process and in every worker alike.
import type { PlantStoreServer } from '../plant-store-server.js';
import { describeError } from './logger.js';

/**
 * Re-reads the server's token file on each SIGHUP. Without a JSON log (`logged` false), the outcome goes
 * to stderr, so an operator who sent the signal sees whether it took; with one, the server logs it.
 */
export function reloadTokensOnHangup(server: Pick<PlantStoreServer, 'reloadTokens'>, logged: boolean): void {
  process.on('SIGHUP', () => {
    server.reloadTokens().then(
      (entries) => {
        if (!logged) process.stderr.write(`plant-store-server: SIGHUP: ${entries} token entries accepted now\n`);
      },
      (error: unknown) => {
        if (!logged)
          process.stderr.write(`plant-store-server: SIGHUP: the previous tokens stay: ${describeError(error)}\n`);
      },
    );
  });
}

/** The banner's line about what is accepted, when it is not a token printed for the operator to copy. */
export function acceptingLine(options: {
  readonly tokenFile?: string;
  readonly auth?: { readonly jwt?: { readonly issuer: string | readonly string[] } };
}): string | undefined {
  const parts: string[] = [];
  if (options.tokenFile !== undefined) parts.push(`the tokens of ${options.tokenFile} (SIGHUP re-reads it)`);
  if (options.auth?.jwt !== undefined) parts.push(`JWTs from ${[options.auth.jwt.issuer].flat().join(', ')}`);
  return parts.length === 0 ? undefined : `Accepting ${parts.join(' and ')}.`;
}
