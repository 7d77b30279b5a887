// One rule for an option, held by the CLI and the API alike: each value of a table, written as the
// flag's (or the variable's) text and given as the API's value, is taken by both or refused by both,
// and the CLI's refusal is the API's message after the flag.
import { expect } from 'vitest';
import { parseCli, UsageError } from '../src/internal/cli-options.js';
import { type PlantStoreServerOptions, startPlantStoreServer } from '../src/index.js';

/** One value: as the flag's text, as the API's value, and whether the API takes it. */
export type Case<T> = readonly [text: string, value: T, taken: boolean];

type Env = Record<string, string>;
type ServerOptions = PlantStoreServerOptions;

/** An option as the CLI is given it and as the server's API takes it. */
export interface OptionRule<T> {
  /** The CLI's arguments and variables that give `text`. */
  readonly cli: (text: string) => { readonly argv: readonly string[]; readonly env?: Env };
  /** Where the CLI says the text came from: the flag or the variable (and, for a file, its path). */
  readonly source: (text: string) => string;
  /** The server's options that give `value`. */
  readonly api: (value: T) => ServerOptions;
  /** The value the CLI read, from the server's options it made. */
  readonly read: (options: ServerOptions) => T | undefined;
}

/** What the CLI refuses in `argv` and `env` (a UsageError's message), or undefined when it reads them. */
export function cliRefusal(argv: readonly string[], env: Env = {}): string | undefined {
  try {
    parseCli(argv, env);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  return undefined;
}

/**
 * What starting a server with `options` refuses (its TypeError or RangeError's message), or undefined
 * when it takes them. A server that starts is closed; one whose listen fails (a port in use) passed
 * every check of its options, so that is no refusal of a value.
 */
export async function apiRefusal(options: ServerOptions): Promise<string | undefined> {
  try {
    const server = await startPlantStoreServer({ port: 0, tokens: ['t'], ...options });
    await server.close();
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) return error.message;
  }
  return undefined;
}

/** Runs each case through the API and the CLI: both take it, reading the same value, or both refuse it. */
export async function expectOneRule<T>(rule: OptionRule<T>, cases: readonly Case<T>[]): Promise<void> {
  for (const [text, value, taken] of cases) {
    const api = await apiRefusal(rule.api(value));
    expect({ text, taken: api === undefined }, 'the API takes or refuses the value as the table says').toEqual({
      text,
      taken,
    });
    const { argv, env } = rule.cli(text);
    expect({ text, refusal: cliRefusal(argv, env) }).toEqual({
      text,
      refusal: api === undefined ? undefined : `${rule.source(text)}: ${api}`,
    });
    if (taken) {
      const command = parseCli(argv, env ?? {});
      if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
      expect({ text, read: rule.read(command.options) }).toEqual({ text, read: value });
    }
  }
}

/** The rule of a flag that takes a value on its own: `--name text`, named `--name`. */
export function flagRule<T>(
  name: string,
  api: OptionRule<T>['api'],
  read: OptionRule<T>['read'],
  given: readonly string[] = [],
): OptionRule<T> {
  return { cli: (text) => ({ argv: [...given, `--${name}`, text] }), source: () => `--${name}`, api, read };
}
