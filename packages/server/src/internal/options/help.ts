// The --help text, laid out from the option table: each group under its title, each option's flag,
// then what it does, its variable, default and relations, wrapped and aligned.
import { flagOf, notesOf, variableOf } from './describe.js';
import { GROUPS, type Group } from './spec.js';
import { ENTRIES, OPTIONS } from './table.js';

/** The width the text is wrapped to, and the column the descriptions start at. */
const WIDTH = 100;
const INDENT = 26;

const plain = (text: string) => text.replaceAll('`', '');

/** `text`'s words in lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function optionLines(name: (typeof ENTRIES)[number][0]): string[] {
  const spec = OPTIONS[name];
  const flag = `  ${plain(flagOf(name))}`;
  const variable = variableOf(name);
  const details = [
    ...(variable !== undefined ? [plain(variable)] : []),
    ...(spec.default !== undefined ? [`default ${plain(spec.default)}`] : []),
    ...notesOf(name).map(plain),
  ];
  const text = [
    ...wrap(plain(spec.help), WIDTH - INDENT),
    ...(details.length > 0 ? wrap(details.join('; '), WIDTH - INDENT) : []),
  ];
  const pad = ' '.repeat(INDENT);
  const first = flag.length < INDENT - 1 ? [`${flag.padEnd(INDENT)}${text.shift() ?? ''}`] : [flag];
  return [...first, ...text.map((line) => `${pad}${line}`)];
}

function groupLines(group: Group): string[] {
  const names = ENTRIES.filter(([, spec]) => spec.group === group).map(([name]) => name);
  return [`${GROUPS[group]}:`, ...names.flatMap(optionLines), ''];
}

/** The `--help` text. */
export function usage(): string {
  const intro = [
    'Usage: plant-store-server [options]',
    '       plant-store-server import --data <file> --database <url>',
    '',
    ...wrap(
      'Starts the Plant Store reference server (POST {base}/plants). `import` copies the plants of a --data file into the --database table (run it again: the same table), then exits.',
      WIDTH,
    ).map(plain),
    '',
    ...wrap(
      'Each option is a flag or its environment variable; the flag wins. A switch variable takes 1/true/yes/on or 0/false/no/off.',
      WIDTH,
    ),
    '',
  ];
  const outro = [
    'SIGINT/SIGTERM stop accepting, finish requests in flight, flush the store and exit 0.',
    'SIGHUP re-reads --token-file.',
    '',
  ];
  return [...intro, ...(Object.keys(GROUPS) as Group[]).flatMap(groupLines), ...outro].join('\n');
}
