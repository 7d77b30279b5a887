// The command line and the environment read through the option table: the flags as parseArgs reads
// them, each option's variable where its flag is absent, the checks between options, then each value
// through its reader into the draft.
import { parseArgs } from 'node:util';
import { type Draft, emptyDraft } from './command.js';
import { splitList } from './readers.js';
import type { OptionSpec } from './spec.js';
import { ENTRIES, OPTIONS, type OptionName } from './table.js';
import { UsageError } from './usage-error.js';

/** The flags of a command line, by option name: `true` for a switch, the values of a repeatable flag. */
export type Flags = Partial<Record<OptionName, string | string[] | boolean>>;

type Env = Readonly<Record<string, string | undefined>>;

/** The configuration parseArgs takes, from the table. */
const PARSE_ARGS_OPTIONS = Object.fromEntries(
  ENTRIES.map(([name, spec]) => [
    name,
    {
      type: spec.reader.takes === 'switch' ? ('boolean' as const) : ('string' as const),
      ...(spec.reader.takes === 'texts' && { multiple: true }),
      ...(spec.short !== undefined && { short: spec.short }),
    },
  ]),
);

/** The flags of `argv`; throws {@link UsageError}. */
export function readFlags(argv: readonly string[]): Flags {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: PARSE_ARGS_OPTIONS })
      .values as Flags;
  } catch (error) {
    // A stray argument is most often a value given to a flag that takes none (`--any-token s3cret`),
    // which may be a secret, and parseArgs quotes it: this message may end up in a log.
    if ((error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new UsageError(
        'unexpected argument: this command takes no positional arguments (is it a value after a flag that takes none?)',
      );
    }
    // The other messages of parseArgs name the flag ("Unknown option '--prot'"), never its value.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** An option as given: its text (`true` for a switch's flag) and the flag or variable it came from. */
interface Given {
  readonly text: string | readonly string[] | true;
  readonly source: string;
  readonly fromFlag: boolean;
}

/** Each option of `names` as given: its flag, or else its variable (an empty one is unset). */
function gather(flags: Flags, env: Env, names: readonly OptionName[]): Map<OptionName, Given> {
  const given = new Map<OptionName, Given>();
  for (const name of names) {
    const spec: OptionSpec<unknown> = OPTIONS[name];
    const flag = flags[name];
    if (flag !== undefined) {
      given.set(name, {
        text: flag === true ? true : (flag as string | string[]),
        source: `--${name}`,
        fromFlag: true,
      });
      continue;
    }
    const variable = spec.env === undefined ? undefined : env[spec.env];
    if (spec.env === undefined || variable === undefined || variable === '') continue;
    const text = spec.reader.takes === 'texts' ? splitList(variable) : variable;
    given.set(name, { text, source: spec.env, fromFlag: false });
  }
  return given;
}

/**
 * Whether an option is given. A switch's variable is read here, once it counts (a flag that beats it
 * leaves it unread): off is the same as unset.
 */
function isGiven(given: Map<OptionName, Given>, name: string): boolean {
  const entry = given.get(name as OptionName);
  if (entry === undefined) return false;
  const spec: OptionSpec<unknown> = OPTIONS[name as OptionName];
  if (spec.reader.takes !== 'switch' || entry.text === true) return true;
  if (spec.reader.read(entry.text as string, entry.source) === true) {
    given.set(name as OptionName, { ...entry, text: true });
    return true;
  }
  given.delete(name as OptionName);
  return false;
}

/** Other ways to say the same: a flag beats the other's variable; two flags, or two variables, are refused. */
function settleAlternatives(given: Map<OptionName, Given>): void {
  for (const [name, spec] of ENTRIES) {
    for (const other of spec.alternativeTo ?? []) {
      const mine = given.get(name);
      const theirs = given.get(other as OptionName);
      if (mine === undefined || theirs === undefined) continue;
      if (mine.fromFlag !== theirs.fromFlag) {
        given.delete(mine.fromFlag ? (other as OptionName) : name);
      } else if (isGiven(given, name) && isGiven(given, other)) {
        throw new UsageError(
          mine.fromFlag
            ? `give either ${mine.source} or ${theirs.source}, not both`
            : `set either ${mine.source} or ${theirs.source}, not both`,
        );
      }
    }
  }
}

/** The checks between options: what each excludes, then what each needs. */
function checkRelations(given: Map<OptionName, Given>): void {
  const has = (name: string) => isGiven(given, name);
  for (const [name, spec] of ENTRIES) {
    const excluded = spec.excludes?.options.find((other) => has(name) && has(other));
    if (excluded !== undefined) {
      throw new UsageError(spec.excludes?.message ?? `give either --${name} or --${excluded}, not both`);
    }
  }
  for (const [name, spec] of ENTRIES) {
    if (!has(name)) continue;
    const unmet = spec.needs?.find((need) => !need.anyOf.some(has));
    if (unmet === undefined) continue;
    // Named as it was given: a flag's partners as flags, a variable's as variables.
    const { source, fromFlag } = given.get(name)!;
    const partners = unmet.anyOf.map((other) => (fromFlag ? `--${other}` : OPTIONS[other as OptionName].env));
    throw new UsageError(unmet.message?.(has) ?? `${source} goes with ${partners.join(' or ')}`);
  }
}

/**
 * Reads the options of `names` from the flags and the environment into a draft; throws {@link UsageError}.
 * `related`: check what the options need and exclude (the import names its two stores itself).
 */
export function readOptions(flags: Flags, env: Env, names: readonly OptionName[], related = true): Draft {
  const given = gather(flags, env, names);
  settleAlternatives(given);
  for (const name of given.keys()) isGiven(given, name);
  if (related) checkRelations(given);
  const draft = emptyDraft();
  for (const [name, { text, source }] of given) {
    const { reader, into } = OPTIONS[name] as OptionSpec<unknown>;
    const value =
      text === true
        ? true
        : reader.takes === 'texts'
          ? reader.read(text as readonly string[], source)
          : reader.read(text as string, source);
    into?.(draft, value);
  }
  return draft;
}
