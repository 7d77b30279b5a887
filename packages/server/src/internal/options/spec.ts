// The shape of an entry of the option table (options/table.ts), and the helpers its parts are written
// with: where a value goes in the draft, and the groups the help and the reference show.
import type { Draft } from './command.js';
import type { Reader } from './readers.js';

/** The groups of options, in the order of the help and the reference, with their titles. */
export const GROUPS = {
  server: 'Server',
  auth: 'Authentication and limits',
  store: 'Store',
  postgres: 'PostgreSQL',
  logging: 'Logging',
  tracing: 'Tracing',
  ops: 'Operations',
  workers: 'Workers',
  general: 'Help',
} as const;

export type Group = keyof typeof GROUPS;

/** Another option this one needs: one of `anyOf` must be given too. */
export interface Need {
  readonly anyOf: readonly string[];
  /** The error when none is, instead of "<option> goes with <anyOf>"; `given` tells whether an option is. */
  readonly message?: (given: (name: string) => boolean) => string;
}

/** One option. Texts mark code with backticks: the reference keeps them, --help drops them. */
export interface OptionSpec<T> {
  readonly group: Group;
  /** The one-letter flag (`-h`). */
  readonly short?: string;
  /** The environment variable, which the flag wins over. */
  readonly env?: string;
  /** What the value looks like (`<n>`); none for a switch. */
  readonly value?: string;
  readonly reader: Reader<T>;
  /** What holds when the option is not given: the server or the store applies it, not the CLI. */
  readonly default?: string;
  readonly help: string;
  /** The option of the server's (or the store's) API that it sets. */
  readonly api?: string;
  /** Puts the value where the command takes it from. */
  into?(draft: Draft, value: T): void;
  /** Each of these must be met. */
  readonly needs?: readonly Need[];
  /** Options that cannot go with this one, wherever each is given; `message` instead of "give either … not both". */
  readonly excludes?: { readonly options: readonly string[]; readonly message?: string };
  /**
   * Other ways to say the same (`--token`, `--any-token`): two flags, or two variables, are refused; a
   * flag beats the other's variable, which is then not read at all.
   */
  readonly alternativeTo?: readonly string[];
}

export const option = <T>(spec: OptionSpec<T>): OptionSpec<T> => spec;

/** The parts of the draft that are objects of options, and their options. */
type Part = 'server' | 'auth' | 'jwt' | 'ops' | 'store' | 'postgres';

/** Puts the value as `key` of the draft's `part`: `field('server', 'port')`. */
export const field =
  <P extends Part, K extends keyof Draft[P]>(part: P, key: K) =>
  (draft: Draft, value: NonNullable<Draft[P][K]>) => {
    draft[part][key] = value;
  };
