// The error table of README.md and docs/service.md is made from openapi.yaml's x-error-codes by
// scripts/error-table.mjs (`npm run docs:spec`; test/docs/spec-pages.test.ts holds the pages to it): a row
// per code, and no other page keeps a copy of the table, it links to one of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE_PAGES, errorCodes, errorTable } from '../../scripts/error-table.mjs';
import { publishedPages, root } from './blocks.js';

const read = (page: string) => readFileSync(join(root, page), 'utf8');

describe('the error table', () => {
  it('has a row per code of the spec, with its status, constant, remedy and user message', () => {
    const table = errorTable();
    const codes = errorCodes();
    expect(codes.length).toBeGreaterThanOrEqual(15);
    for (const { name, code, status, userMessage } of codes) {
      expect(table).toContain(`| ${code} | ${status} | \`ErrorCode.${name}\` |`);
      expect(table).toContain(`| ${userMessage} |`);
    }
  });

  it('is kept on no other page: they link to it', () => {
    const codes = errorCodes().map((c) => c.code);
    const codeRow = new RegExp(`^\\| *\`?(${codes.join('|')})\`? *\\|`, 'm');
    const pages = publishedPages().filter((page) => !ERROR_TABLE_PAGES.includes(page));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((page) => codeRow.test(read(page)))).toEqual([]);
  });
});
