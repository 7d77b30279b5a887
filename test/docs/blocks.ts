// The fenced blocks of every page the project publishes (the front page, each package's npm page, docs/,
// the examples' and the bench's READMEs), found by walking the tree so a new page is covered the day it is
// added, and what the snippet test does with each:
// - a block right under `<!-- file: <path> -->` shows that file of the repository to the letter (its own
//   test runs the file); `<!-- example:<name> -->` is docs/hosting.md's form of the same, checked there;
// - a `ts`/`tsx`/`js` block runs as written, unless its info string says `fragment` (type-checked
//   against the packages, not run) or `illustration` (neither: the page says what it stands for);
// - an `sh` block runs when every command in it is one the test can run here (the CLI against a real
//   server, `npm install` of packages that exist), and must be marked `illustration` otherwise;
// - any other language (sql, yaml, text) is shown as a file, or marked `illustration`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../../scripts/published-pages.mjs';

export { publishedPages, root } from '../../scripts/published-pages.mjs';

export type Mark = 'run' | 'fragment' | 'illustration' | 'file';

export interface Block {
  readonly page: string;
  /** The fence's line in the page (1-based). */
  readonly line: number;
  readonly lang: string;
  readonly mark: Mark;
  readonly code: string;
  /** For `file`: the repository path the block shows. */
  readonly file?: string;
}

const fence = /^```([a-z]*)([^\n]*)\n([\s\S]*?)^```$/gm;

/** The fenced blocks of `page` (a path from the repository's root), each with what the test does with it. */
export function blocksOf(page: string): Block[] {
  const text = readFileSync(join(root, page), 'utf8');
  return [...text.matchAll(fence)].map((match) => {
    const before = text.slice(0, match.index);
    const line = before.split('\n').length;
    const previous = before.trimEnd().split('\n').at(-1) ?? '';
    const lang = match[1]!;
    const words = match[2]!.trim().split(/\s+/);
    const code = match[3]!;
    const shown = /^<!-- file: (\S+) -->$/.exec(previous)?.[1];
    if (shown !== undefined) return { page, line, lang, mark: 'file', code, file: shown };
    if (/^<!-- example:[\w-]+ -->$/.test(previous)) return { page, line, lang, mark: 'file', code };
    const mark: Mark = words.includes('illustration')
      ? 'illustration'
      : words.includes('fragment')
        ? 'fragment'
        : 'run';
    return { page, line, lang, mark, code };
  });
}

/** A line of an `sh` block as commands: `\` continuations joined, comments and blank lines dropped. */
export function shellCommands(code: string): string[] {
  return code
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** The words of a shell command, with '…' and "…" quoting (no expansion: the pages use none). */
export function shellWords(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}
