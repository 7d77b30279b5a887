// Every TypeScript and JavaScript snippet of the front page and of each package's npm page runs as
// written: a test file (it imports vitest) runs under vitest, anything else as a program, against the
// built packages. A program that calls the client gets a reference server on the default address that
// takes any token (PLANT_STORE_TOKEN is set too); one that starts a server is stopped with SIGTERM once its port
// answers, and must then exit 0. Browser code (it imports msw/browser) is bundled for the browser,
// which proves it compiles and resolves; the browser suites run the same calls.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPlantStoreServer } from '@plant-store/server';
import { build, transform } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...['client', 'msw', 'server', 'core', 'store-file'].map((name) => `packages/${name}/README.md`),
];
// Inside the repository, so that the snippets' imports resolve to the workspace's packages.
const here = join(root, 'test/docs/.snippets');
const cwd = mkdtempSync(join(tmpdir(), 'plant-store-snippets-'));
mkdirSync(here, { recursive: true });
afterAll(() => {
  rmSync(here, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

interface Snippet {
  readonly page: string;
  readonly line: number;
  readonly code: string;
}

const snippets: Snippet[] = pages.flatMap((page) => {
  const text = readFileSync(join(root, page), 'utf8');
  return [...text.matchAll(/^```(?:ts|js)\n([\s\S]*?)^```$/gm)].map((match) => ({
    page,
    line: text.slice(0, match.index).split('\n').length,
    code: match[1]!,
  }));
});

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Whether something accepts connections on 127.0.0.1:`port`. */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('close', () => socket.destroy());
    setTimeout(() => socket.end(), 50);
  });

/** Runs `command` with a bound, resolving to its exit code and output; `stopOnPort`: SIGTERM once that port answers. */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stopOnPort?: number } = {}) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const bound = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let signalled = false;
    const poll =
      options.stopOnPort === undefined
        ? undefined
        : setInterval(async () => {
            // A server program goes on after its port opens (it registers its signal handlers once
            // startPlantStoreServer resolves), so it gets a moment before the signal.
            if (signalled || !(await answers(options.stopOnPort!)) || signalled) return;
            signalled = true;
            setTimeout(() => child.kill('SIGTERM'), 500);
          }, 100);
    child.on('exit', (code) => {
      clearTimeout(bound);
      clearInterval(poll);
      children.delete(child);
      resolve({ code, output });
    });
  });
}

describe.each(pages)('%s', (page) => {
  const mine = snippets.filter((snippet) => snippet.page === page);
  it('has TypeScript snippets to run', () => {
    expect(mine.length).toBeGreaterThan(0);
  });

  it.each(mine.map((snippet) => [snippet.line, snippet] as const))(
    'runs the snippet at line %i as written',
    { timeout: 90_000 },
    async (line, snippet) => {
      const name = `${page.replaceAll('/', '-')}-${line}`;
      if (snippet.code.includes("from 'vitest'")) {
        const file = join(here, `${name}.test.ts`);
        writeFileSync(file, snippet.code);
        const result = await run(process.execPath, [
          join(root, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--root',
          root,
          relative(root, file),
        ]);
        expect(result.code, result.output).toBe(0);
        return;
      }
      if (snippet.code.includes("from 'msw/browser'")) {
        const file = join(here, `${name}.ts`);
        writeFileSync(file, snippet.code);
        const bundled = await build({
          entryPoints: [file],
          bundle: true,
          platform: 'browser',
          format: 'esm',
          write: false,
          logLevel: 'silent',
        });
        expect(bundled.errors).toEqual([]);
        return;
      }
      const file = join(here, `${name}.mjs`);
      writeFileSync(file, (await transform(snippet.code, { loader: 'ts', format: 'esm', target: 'node20' })).code);
      const startsServer = /startPlantStoreServer|createServer\(|\.listen\(/.test(snippet.code);
      const usesClient = snippet.code.includes('@plant-store/client') && !startsServer;
      const server = usesClient ? await startPlantStoreServer({ port: 4010, tokens: 'any' }) : undefined;
      try {
        const result = await run(process.execPath, [file], {
          env: { PLANT_STORE_TOKEN: 'snippet-token' },
          ...(startsServer && { stopOnPort: 4010 }),
        });
        expect(result.code, result.output).toBe(0);
      } finally {
        await server?.close();
      }
    },
  );
});
