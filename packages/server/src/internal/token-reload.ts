// The token file: read at start into a set the app consults, and read again on demand
// (`reloadTokens()`, which the CLI calls on SIGHUP), swapping the set only when the file is good.
import { readFile } from 'node:fs/promises';
import { createTokenSet, parseTokenFile, type TokenSet } from '@plant-store/core';
import { describeError, type Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** The entries of a token file; an Error that names the file and the reason (never an entry). */
async function readTokenFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the token file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return parseTokenFile(text);
  } catch (error) {
    throw new TypeError(`the token file ${path}: ${(error as Error).message}`);
  }
}

/** The token file at `path` as a set the app consults; a bad file rejects (the start fails). */
export async function openTokenFile(path: string): Promise<TokenSet> {
  return createTokenSet(await readTokenFile(path));
}

/**
 * Reads the token file again into `tokens`, which keeps its entries when the file is bad (the
 * rejection says why); resolves to the number of entries. Counted in the metrics and logged either way.
 */
export async function reloadTokenFile(
  path: string,
  tokens: TokenSet,
  logger: Logger | undefined,
  metrics: Metrics | undefined,
): Promise<number> {
  try {
    tokens.replace(await readTokenFile(path));
    metrics?.observeTokenReload(true, tokens.size);
    logger?.info('tokens reloaded', { event: 'tokens-reloaded', entries: tokens.size });
    return tokens.size;
  } catch (error) {
    metrics?.observeTokenReload(false, tokens.size);
    logger?.error('token file not reloaded; the previous tokens stay', {
      event: 'tokens-reload-failed',
      error: describeError(error),
      entries: tokens.size,
    });
    throw error;
  }
}
