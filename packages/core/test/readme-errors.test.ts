// The README's error table is what users read: it must list every code the spec defines, with its status.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode, errorStatus } from '../src/index.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('<!-- section:errors -->'), readme.indexOf('<!-- /section:errors -->'));

describe('README error table', () => {
  it.each(Object.entries(ErrorCode))('lists %s with its code and status', (name, code) => {
    expect(section).toContain(`| ${code} | ${errorStatus[code]} | \`ErrorCode.${name}\` |`);
  });
});
