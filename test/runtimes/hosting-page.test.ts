import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const page = readFileSync(new URL('../../docs/hosting.md', import.meta.url), 'utf8');

it.each(['bun-server', 'deno-server', 'worker'])(
  'shows %s.ts, the file the runtime tests run, to the letter in docs/hosting.md',
  (name) => {
    const shown = new RegExp(
      `<!-- example:${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n<!-- /example:${name} -->`,
    ).exec(page)?.[1];
    expect(shown).toBe(readFileSync(new URL(`./${name}.ts`, import.meta.url), 'utf8'));
  },
);
