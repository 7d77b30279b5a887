// An option in words, from its table entry: its flag as written, its variable, and how it relates to
// the others. The help and the flag reference lay these out, each in its own form; texts mark code
// with backticks.
import type { OptionSpec } from './spec.js';
import { ENTRIES, OPTIONS, type OptionName } from './table.js';

const flag = (name: string) => `\`--${name}\``;

/** `-h, --help`, `--port <n>`, with backticks. */
export function flagOf(name: OptionName): string {
  const spec: OptionSpec<unknown> = OPTIONS[name];
  const long = `\`--${name}${spec.value !== undefined ? ` ${spec.value}` : ''}\``;
  return spec.short !== undefined ? `\`-${spec.short}\`, ${long}` : long;
}

/** The variable, and how it is written when it is not a single value. */
export function variableOf(name: OptionName): string | undefined {
  const { env, reader } = OPTIONS[name] as OptionSpec<unknown>;
  if (env === undefined) return undefined;
  if (reader.takes === 'texts') return `\`${env}\` (comma-separated)`;
  if (reader.takes === 'switch') return `\`${env}=1\``;
  return `\`${env}\``;
}

/** How an option is given and what goes with it: repeatable, with, not with, instead of. */
export function notesOf(name: OptionName): string[] {
  const spec: OptionSpec<unknown> = OPTIONS[name];
  const notes: string[] = [];
  if (spec.reader.takes === 'texts') notes.push('repeatable');
  if (spec.needs !== undefined) {
    notes.push(`with ${spec.needs.map((need) => need.anyOf.map(flag).join(' or ')).join(' and ')}`);
  }
  // Both relations hold both ways, wherever the table declares them.
  const related = (relation: (spec: OptionSpec<unknown>) => readonly string[] | undefined) =>
    ENTRIES.flatMap(([other, otherSpec]) =>
      other === name ? (relation(spec) ?? []) : (relation(otherSpec) ?? []).includes(name) ? [other] : [],
    );
  const excluded = related((each) => each.excludes?.options);
  if (excluded.length > 0) notes.push(`not with ${excluded.map(flag).join(' or ')}`);
  const alternatives = related((each) => each.alternativeTo);
  if (alternatives.length > 0) notes.push(`instead of ${alternatives.map(flag).join(' or ')}`);
  return notes;
}
