// The core runs in browsers and edge runtimes: its tsconfig (types: [], DOM lib) must make any
// Node-only API a compile error, and the core's own sources must compile under it.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const configPath = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function compile() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const roots = [...parsed.fileNames, fixture('imports-node.ts'), fixture('uses-node-globals.ts')];
  const program = ts.createProgram(roots, { ...parsed.options, noEmit: true });
  const byFile = new Map<string, ts.Diagnostic[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file?.fileName ?? '(global)';
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  }
  return { byFile, sources: parsed.fileNames };
}

const { byFile, sources } = compile();
const messages = (file: string) =>
  (byFile.get(file) ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));

describe('runtime neutrality', () => {
  it('compiles every source of the core with no error under its own tsconfig', () => {
    expect(sources.length).toBeGreaterThan(5);
    const errors = [...byFile.entries()].filter(([file]) => !file.includes('/fixtures/'));
    expect(
      errors.map(
        ([file, ds]) => `${file}: ${ds.map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')).join('; ')}`,
      ),
    ).toEqual([]);
  });

  it('makes an import of node:fs a compile error', () => {
    expect(messages(fixture('imports-node.ts')).join('\n')).toMatch(/Cannot find module 'node:fs'/);
  });

  it('makes the Node globals process and Buffer compile errors', () => {
    const text = messages(fixture('uses-node-globals.ts')).join('\n');
    expect(text).toMatch(/Cannot find name 'process'/);
    expect(text).toMatch(/Cannot find name 'Buffer'/);
  });
});
